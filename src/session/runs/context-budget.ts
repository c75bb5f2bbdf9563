import { agentContextWindow } from "../../config/agents";
import type { AgentConfig } from "../../config/schema";
import { sanitizeMessage } from "../../history/sanitize-message";
import { estimateTokens, messageTokens } from "../../history/token-estimate";
import type { ToolSpec } from "../../runtimes/types";
import type { TranscriptMessage } from "../../transcript/message";
import type { SeqMessage } from "../transcript/run-history";

/** The output allowance of a runtime that sets no `maxOutputTokens` (SPEC §20). */
export const DEFAULT_OUTPUT_ALLOWANCE = 4096;

/** A run compacts first when its uncompacted history holds more than this share of the budget (SPEC §20). */
export const COMPACT_AT_SHARE = 0.8;

/** The output tokens an agent's calls may take: its runtime's `maxOutputTokens`, else the default. */
export function outputAllowance(agent: AgentConfig): number {
  const runtime = agent.runtime;
  return ("maxOutputTokens" in runtime ? runtime.maxOutputTokens : undefined) ?? DEFAULT_OUTPUT_ALLOWANCE;
}

/**
 * The tokens a prompt has for its messages (SPEC §20): the model's window less the output allowance, the
 * system prompt and the tool definitions, as sent. Never below 0.
 */
export function promptBudget(agent: AgentConfig, system: string, tools: readonly ToolSpec[]): number {
  const fixed = estimateTokens(system) + (tools.length > 0 ? estimateTokens(JSON.stringify(tools)) : 0);
  return Math.max(0, agentContextWindow(agent) - outputAllowance(agent) - fixed);
}

/**
 * A message as a prompt of `budget` tokens carries it: as it is, or, when it is too large for any
 * prompt, its truncated safe view (the view `sessions_history` shows; SPEC §20).
 */
export function fittedMessage(message: TranscriptMessage, budget: number): TranscriptMessage {
  return messageTokens(message) <= budget ? message : sanitizeMessage(message).message;
}

/** The tokens of a history, as a prompt of `budget` tokens would carry each message. */
export function historyTokens(rows: readonly SeqMessage[], budget: number): number {
  return rows.reduce((sum, row) => sum + messageTokens(fittedMessage(row.message, budget)), 0);
}

/**
 * Reads a history (newest first) only as far as a prompt could use it: until `limit` tokens are read,
 * one message beyond, so a caller can tell a history that fills the limit from one that overflows it.
 */
export function readNewest(newestFirst: Iterable<SeqMessage>, limit: number, budget: number): SeqMessage[] {
  const rows: SeqMessage[] = [];
  let tokens = 0;
  for (const row of newestFirst) {
    rows.push(row);
    tokens += messageTokens(fittedMessage(row.message, budget));
    if (tokens > limit) break;
  }
  return rows;
}

/**
 * The history a prompt carries (SPEC §20): messages taken newest first until `budget` tokens are spent,
 * never a fixed number of them and never over the budget; oldest first, as runtimes read it. A message
 * too large for any prompt is its truncated safe view; the first that does not fit ends the history,
 * so it never has a gap.
 */
export function selectHistory(newestFirst: Iterable<SeqMessage>, budget: number): TranscriptMessage[] {
  const taken: TranscriptMessage[] = [];
  let left = budget;
  for (const row of newestFirst) {
    const message = fittedMessage(row.message, budget);
    const tokens = messageTokens(message);
    if (tokens > left) break;
    taken.push(message);
    left -= tokens;
  }
  return taken.reverse();
}
