import { deriveKey } from "../../auth/purpose-keys";
import type { AgentConfig } from "../../config/schema";
import { readSecret } from "../../config/secrets";
import { redactKnownSecrets } from "../../history/redact";
import { messageTokens } from "../../history/token-estimate";
import { truncateText } from "../../history/truncate";
import { runtimeFor } from "../../runtimes";
import type { TranscriptMessage } from "../../transcript/message";
import { liveRecord, type SessionRecord } from "../record/record";
import { type CompactionSummary, readCompaction, writeCompaction } from "../store/compaction-store";
import { queuedRuns, runningRuns } from "../store/run-store";
import { messageSeq, type SeqMessage } from "../transcript/run-history";
import { promptBudget, selectHistory } from "./context-budget";

/** What the agent's model is asked to be while it summarizes (no tools, no instructions of the agent's). */
export const SUMMARY_SYSTEM_PROMPT = [
  "You are compacting a conversation: summarize it so that it can go on without its older turns.",
  "Keep every fact, decision, name, number, open question and promise the conversation relies on;",
  "drop greetings and repetition. Write plain prose in the conversation's language; no preamble.",
].join(" ");
/** The turn that asks for the summary, after the older turns. */
export const SUMMARY_REQUEST =
  "Summarize the conversation above (including any earlier summary at its start) for your own later use.";
/** What a prompt that starts from a summary says before it. */
export const SUMMARY_HEADER = "[Summary of the earlier conversation, compacted]";

/** Who compacts: the session, its agent as this session runs it, and how to write in one transaction. */
export interface CompactionContext {
  env: Env;
  sql: SqlStorage;
  transact: <T>(write: () => T) => T;
  record: SessionRecord;
  agent: AgentConfig;
  signal: AbortSignal;
}

export type CompactionOutcome =
  | { compacted: true; summary: CompactionSummary; summarizedMessages: number; keptMessages: number }
  | { compacted: false; reason: string };

/** The summary as the first message of a prompt (never stored in the transcript), cut to fit `budget`. */
export function summaryMessage(summary: CompactionSummary, budget: number): TranscriptMessage {
  const message: TranscriptMessage = {
    id: `compaction:${summary.operationId}`,
    role: "user",
    content: `${SUMMARY_HEADER}\n\n${summary.summary}`,
    timestamp: summary.compactedAt,
  };
  return messageTokens(message) <= budget
    ? message
    : { ...message, content: truncateText(message.content as string).text };
}

/**
 * The first message seq a compaction must keep verbatim: the trigger of a run running or queued (its
 * prompt reads that message by itself), so no summary ever covers it.
 */
export function openTriggerSeq(sql: SqlStorage): number {
  const seqs = [...runningRuns(sql), ...queuedRuns(sql)].flatMap((run) => {
    const seq = run.triggerMessageId ? messageSeq(sql, run.triggerMessageId) : undefined;
    return seq === undefined ? [] : [seq];
  });
  return Math.min(Number.POSITIVE_INFINITY, ...seqs);
}

/**
 * Splits a history (newest first) into the newest turns kept verbatim and the older ones to summarize.
 * A turn starts at a user message, so a tool call is never parted from its result. The newest turn is
 * always kept, then more while they fit `keepTokens`; every message from `protectFromSeq` on is kept.
 */
export function splitTurns(
  newestFirst: readonly SeqMessage[],
  keepTokens: number,
  protectFromSeq: number,
): { kept: SeqMessage[]; older: SeqMessage[] } {
  let kept = 0;
  let tokens = 0;
  while (kept < newestFirst.length) {
    let end = kept;
    let turnTokens = 0;
    // One turn: back to (and with) its user message.
    for (; end < newestFirst.length; end++) {
      const row = newestFirst[end] as SeqMessage;
      turnTokens += messageTokens(row.message);
      if (row.message.role === "user") break;
    }
    end = Math.min(end + 1, newestFirst.length);
    const protectedTurn = (newestFirst[kept] as SeqMessage).seq >= protectFromSeq;
    if (kept > 0 && !protectedTurn && tokens + turnTokens > keepTokens) break;
    kept = end;
    tokens += turnTokens;
  }
  return { kept: newestFirst.slice(0, kept), older: newestFirst.slice(kept) };
}

/**
 * Compacts (SPEC §20): the older turns (and the previous summary) are summarized by the agent's own
 * runtime, called as a run is but with a summarizing system prompt and no tools, so every runtime can
 * do it. The new summary, the count and the `compacted` event are written in one transaction; a model
 * that fails, answers nothing, or a session changed meanwhile (deleted, compacted by another call)
 * leaves the session as it was.
 */
export async function compactHistory(
  context: CompactionContext,
  newestFirst: readonly SeqMessage[],
  options: { keepTokens: number; protectFromSeq: number; runId?: string },
): Promise<CompactionOutcome> {
  const { sql, agent, record } = context;
  const previous = readCompaction(sql);
  const { kept, older } = splitTurns(newestFirst, options.keepTokens, options.protectFromSeq);
  const newestSummarized = older[0];
  if (!newestSummarized)
    return { compacted: false, reason: "nothing older than the newest turn to summarize" };
  const operationId = crypto.randomUUID();
  const request: TranscriptMessage = {
    id: `compaction-request:${operationId}`,
    role: "user",
    content: SUMMARY_REQUEST,
    timestamp: Date.now(),
  };
  const budget = promptBudget(agent, SUMMARY_SYSTEM_PROMPT, []) - messageTokens(request);
  const head = previous ? [summaryMessage(previous, budget)] : [];
  const headTokens = head.reduce((sum, message) => sum + messageTokens(message), 0);
  const handed: (string | undefined)[] = [];
  const hand = <T extends string | undefined>(secret: T): T => {
    handed.push(secret);
    return secret;
  };
  const signing = context.env.SWITCHBOARD_SIGNING_KEY;
  const outcome = await runtimeFor(agent)({
    runId: `compaction-${operationId}`,
    agent,
    sessionKey: record.sessionKey,
    sessionId: record.sessionId,
    message: request,
    history: [...head, ...selectHistory(older, Math.max(0, budget - headTokens))],
    system: SUMMARY_SYSTEM_PROMPT,
    attachments: [],
    tools: [],
    runToken: "",
    signal: context.signal,
    callTool: async () => ({ status: "error", error: "no tools while summarizing" }),
    takeSteering: () => [],
    onDelta: () => {},
    secret: (name) => hand(readSecret(context.env, name)),
    purposeKey: async (purpose) => hand(signing ? await deriveKey(signing, purpose) : undefined),
  });
  if (outcome.kind !== "done")
    return {
      compacted: false,
      reason:
        outcome.kind === "failed"
          ? `the model failed: ${redactKnownSecrets(outcome.error, handed)}`
          : "the model did not answer at once",
    };
  const text = outcome.text.trim();
  if (!text) return { compacted: false, reason: "the model answered no summary" };
  const summary: CompactionSummary = {
    operationId,
    throughSeq: newestSummarized.seq,
    summary: text,
    compactedAt: Date.now(),
  };
  const note = {
    summarizedMessages: older.length,
    keptMessages: kept.length,
    ...(options.runId ? { runId: options.runId } : {}),
  };
  const written = context.transact(() => {
    // The session another call compacted, deleted or replaced meanwhile keeps what it has now.
    if (liveRecord(sql)?.sessionId !== record.sessionId) return false;
    if (readCompaction(sql)?.operationId !== previous?.operationId) return false;
    writeCompaction(sql, summary, note);
    return true;
  });
  if (!written) return { compacted: false, reason: "the session changed while it was summarized" };
  return { compacted: true, summary, ...note };
}
