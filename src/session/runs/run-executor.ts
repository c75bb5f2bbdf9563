import { deriveKey } from "../../auth/purpose-keys";
import { mintRunToken } from "../../auth/run-token";
import { findAgent } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { AgentConfig, SwitchboardConfig } from "../../config/schema";
import { readSecret } from "../../config/secrets";
import { redactJson, redactKnownSecrets } from "../../history/redact";
import { parseSessionKey } from "../../keys";
import type { Requester } from "../../policy/requester";
import { allowedTools } from "../../policy/tool-profiles";
import { buildSystemPrompt } from "../../prompt/system-prompt";
import { runtimeFor } from "../../runtimes";
import { estimateCostUsd } from "../../runtimes/pricing";
import { runModel, runProvider } from "../../runtimes/run-messages";
import type { RunOutcome, ToolSpec } from "../../runtimes/types";
import { stringifyJson } from "../../text/json-text";
import { toolContext } from "../../tools/context";
import { executeToolCall } from "../../tools/invoke";
import { toolRegistry } from "../../tools/registry";
import { toolSpecs } from "../../tools/specs";
import { withOutputSchema } from "../../tools/structured-output";
import type { ToolContext } from "../../tools/types";
import type { TranscriptMessage } from "../../transcript/message";
import type { SessionRecord } from "../record/record";
import type { RunRow } from "../store/run-store";
import { appendRunEvent, pruneRunStreams, SafeDeltas } from "../store/run-stream";
import { recordedToolCall, recordToolCall } from "../store/tool-calls";
import { attachmentRefs } from "../transcript/attachments";
import { readMessage } from "../transcript/transcript";
import { markSteeringTaken, steeringAfter } from "../writes/steering";
import type { LiveReply } from "./live-reply";
import { chainLabel, runtimeChain } from "./model-chain";
import { promptHistory } from "./prompt-history";
import { retainSession } from "./retention-pass";
import { runSessionInfo, runStartOf } from "./run-start";

/** Transient failures (429, 5xx, network) are retried this many times, with doubling backoff. */
export const MAX_TRANSIENT_RETRIES = 2;
const RETRY_BASE_MS = 200;
/** A run token outlives its run by this much, for the announce step (SPEC §3). */
const RUN_TOKEN_GRACE_SECONDS = 300;

export interface ExecutionContext {
  env: Env;
  sql: SqlStorage;
  config: SwitchboardConfig;
  record: SessionRecord;
  run: RunRow;
  deadlineAt: number;
  signal: AbortSignal;
  /** Records a transient failure that is about to be retried. */
  onRetry: (note: string) => void;
  /** Records a handoff in this session: the run's tools call their own object directly (runs/sends.ts). */
  recordSend: ToolContext["recordSend"];
  /** Writes in one transaction (a compaction's summary with its event). */
  transact: <T>(write: () => T) => T;
  /** What the chat shows while the run works (SPEC §21 Live), driven by the run's own events. */
  live?: LiveReply;
}

/** The session a run acts as: its tools and run token follow from this. */
export function runRequester(
  config: SwitchboardConfig,
  record: SessionRecord,
  run: RunRow,
  hop: number,
): Requester & { hop: number } {
  const parsed = parseSessionKey(record.sessionKey, keyOptionsOf(config));
  return {
    agentId: record.agentId,
    sessionKey: record.sessionKey,
    sessionId: record.sessionId,
    depth: record.spawnDepth,
    sandboxed: findAgent(config, record.agentId)?.sandbox ?? false,
    // A thread-bound child's key is its thread's (SPEC §21), not `subagent:`: its spawn depth says it.
    isSubagent: (parsed?.isSubagent ?? false) || record.spawnDepth > 0,
    runId: run.runId,
    hop,
    ...(record.spawn?.collect ? { collector: true as const } : {}),
    ...(record.spawn?.collect?.outputSchema ? { structuredOutput: true as const } : {}),
  };
}

/**
 * How long to wait before retry `attempt + 1`: doubling backoff, or longer when the provider said so
 * (`retry-after`, already capped by the runtime at MAX_RETRY_AFTER_MS).
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined): number {
  return Math.max(RETRY_BASE_MS * 2 ** attempt, retryAfterMs ?? 0);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * One tool call of a run, never repeated: a call made before (the run resumed after an eviction, or its
 * model retried) answers its recorded result; a new one runs with an idempotency key of its own
 * (`<runId>:<index>`: a spawn or send cut before its result was recorded is found again, not redone),
 * and its result is recorded before the run goes on.
 */
async function callToolOnce(
  context: ExecutionContext,
  requester: Requester,
  callIndex: number,
  name: string,
  args: unknown,
): Promise<object> {
  const { sql, run } = context;
  const recorded = recordedToolCall(sql, run.runId, callIndex, name);
  if (recorded) return recorded;
  appendRunEvent(sql, run.runId, "tool_call", { name, args: redactJson(args) });
  context.live?.progress(Date.now());
  const tools: ToolContext = {
    ...toolContext(context.env, context.config, requester, `${run.runId}:${callIndex}`),
    recordSend: context.recordSend,
  };
  let result: object;
  // A failing tool is the model's problem to read about, not a reason to lose the run.
  try {
    const called = await executeToolCall(tools, name, args);
    result = called.ok ? called.details : { status: "error", error: called.message };
  } catch (cause) {
    console.error(`run ${run.runId}: tool ${name} failed`, cause);
    appendRunEvent(sql, run.runId, "tool_result", { name, status: "error" });
    return { status: "error", error: `tool ${name} failed` };
  }
  // Serialized once (a history page's JsonText written as it is), recorded as that text, and answered as
  // the plain JSON data a replay of the call reads back.
  const json = stringifyJson(result);
  recordToolCall(sql, run.runId, callIndex, name, json);
  appendRunEvent(sql, run.runId, "tool_result", { name, status: toolStatus(result) });
  return JSON.parse(json) as object;
}

/** A tool result's `status` as a run stream shows it (every tool answers with one; `ok` when one does not). */
function toolStatus(result: object): string {
  const status = (result as { status?: unknown }).status;
  return typeof status === "string" ? status : "ok";
}

/** What one attempt needs besides the runtime: the same for every attempt and every runtime of the chain. */
interface AttemptParts {
  message: TranscriptMessage;
  history: TranscriptMessage[];
  system: string;
  tools: ToolSpec[];
  requester: Requester & { hop: number };
  runToken: string;
  deltas: SafeDeltas;
  hand: <T extends string | undefined>(secret: T) => T;
}

/** One call of one runtime of the chain. */
function attempt(context: ExecutionContext, agent: AgentConfig, parts: AttemptParts): Promise<RunOutcome> {
  const { env, sql, record, run } = context;
  // The n-th tool call of an attempt is the same call in every attempt and every resumption of the run.
  let callIndex = 0;
  // Each attempt starts from a fresh chat, so it is handed every message steered into the run.
  let steeredSeq = 0;
  return runtimeFor(agent)({
    runId: run.runId,
    agent,
    sessionKey: record.sessionKey,
    sessionId: record.sessionId,
    message: parts.message,
    history: parts.history,
    system: parts.system,
    ...(run.context ? { context: run.context } : {}),
    attachments: attachmentRefs(sql, record.sessionKey),
    tools: parts.tools,
    runToken: parts.runToken,
    signal: context.signal,
    callTool: (name, args) => callToolOnce(context, parts.requester, callIndex++, name, args),
    takeSteering: () => {
      const steered = steeringAfter(sql, run.runId, steeredSeq);
      steeredSeq = steered.lastSeq;
      markSteeringTaken(sql, run.runId, steeredSeq);
      return steered.messages;
    },
    onDelta: (text) => {
      if (text) parts.deltas.push(text);
    },
    ...(env.AI ? { ai: env.AI } : {}),
    secret: (name) => parts.hand(readSecret(env, name)),
    purposeKey: async (purpose) =>
      parts.hand(
        env.SWITCHBOARD_SIGNING_KEY ? await deriveKey(env.SWITCHBOARD_SIGNING_KEY, purpose) : undefined,
      ),
  });
}

/** A done outcome as the run records it: the model and provider that answered, its cost by their pricing. */
function answered(outcome: RunOutcome & { kind: "done" }, agent: AgentConfig): RunOutcome {
  const cost =
    outcome.usage && "pricing" in agent.runtime
      ? estimateCostUsd(outcome.usage, agent.runtime.pricing)
      : undefined;
  if (outcome.usage && cost !== undefined) outcome.usage.estimatedCostUsd = cost;
  return { ...outcome, model: runModel(agent), provider: runProvider(agent) };
}

/**
 * Runs one turn with the session's agent runtime: transient failures (429, 5xx, network) are retried a
 * bounded number of times, then the agent's fallbacks are tried in order, each with its own retries
 * (SPEC §20). A failure that is not transient ends the run as it is: another model would fail the same.
 */
export async function executeRun(context: ExecutionContext): Promise<RunOutcome> {
  const { env, sql, config, record, run } = context;
  pruneRunStreams(sql, Date.now());
  retainSession(sql, config, record, Date.now());
  const configured = findAgent(config, record.agentId);
  if (!configured)
    return { kind: "failed", error: `agent "${record.agentId}" is not configured`, retryable: false };
  const trigger = readMessage(sql, run.triggerMessageId ?? "");
  if (!trigger) return { kind: "failed", error: "the run's message is missing", retryable: false };
  const requester = runRequester(config, record, run, trigger.provenance?.hop ?? 0);
  const granted = [...allowedTools(config, requester)].filter((name) => toolRegistry[name]);
  const runToken = env.SWITCHBOARD_SIGNING_KEY
    ? await mintRunToken(env.SWITCHBOARD_SIGNING_KEY, {
        agentId: record.agentId,
        sessionKey: record.sessionKey,
        sessionId: record.sessionId,
        runId: run.runId,
        depth: record.spawnDepth,
        sandboxed: requester.sandboxed,
        hop: requester.hop,
        ...(requester.structuredOutput ? { structuredOutput: true } : {}),
        ...(requester.collector ? { collector: true } : {}),
        exp: Math.ceil(context.deadlineAt / 1000) + RUN_TOKEN_GRACE_SECONDS,
      })
    : "";
  const chain = runtimeChain(configured, record);
  // Built once per execution: every attempt, and every runtime of the chain, sends the same prompt.
  const system = buildSystemPrompt({
    agent: chain[0] ?? configured,
    session: runSessionInfo(config, record),
    now: Date.now(),
    started: runStartOf(config, record, run, trigger),
  });
  const tools = withOutputSchema(toolSpecs(granted), record.spawn?.collect?.outputSchema);
  // The prompt fits the primary model's window, the session compacted first when its history nears it (SPEC §20).
  const { message, history } = await promptHistory(
    { env, sql, transact: context.transact, record, agent: chain[0] ?? configured, signal: context.signal },
    { run: { runId: run.runId, triggerMessageId: trigger.id }, trigger, system, tools },
  );
  // What a stream shows of the reply as it comes: its safe view, never the raw text (SPEC §14).
  const deltas = new SafeDeltas((data) => {
    const now = Date.now();
    appendRunEvent(sql, run.runId, "delta", data, now);
    context.live?.stream(data, now);
  });
  // Every secret handed to a runtime, masked in whatever error it reports (a server may echo one back).
  const handed: (string | undefined)[] = [runToken];
  const hand = <T extends string | undefined>(secret: T): T => {
    handed.push(secret);
    return secret;
  };
  const parts: AttemptParts = { message, history, system, tools, requester, runToken, deltas, hand };
  for (const [index, agent] of chain.entries()) {
    for (let tries = 0; ; tries++) {
      const outcome = await attempt(context, agent, parts);
      if (outcome.kind === "done") {
        deltas.end();
        return answered(outcome, agent);
      }
      if (outcome.kind === "deferred") return outcome;
      outcome.error = redactKnownSecrets(outcome.error, handed);
      if (!outcome.retryable || context.signal.aborted) return outcome;
      const next = chain[index + 1];
      if (tries >= MAX_TRANSIENT_RETRIES && !next) return outcome;
      // The next attempt writes its reply from the start: a stream reader drops what it showed so far.
      deltas.restart();
      if (tries < MAX_TRANSIENT_RETRIES) {
        context.onRetry(`attempt ${tries + 1} failed: ${outcome.error}`);
        await sleep(retryDelayMs(tries, outcome.retryAfterMs), context.signal);
        continue;
      }
      if (next)
        context.onRetry(`${chainLabel(agent)} failed: ${outcome.error}; falling back to ${chainLabel(next)}`);
      break;
    }
  }
  // Unreachable: the chain has a runtime, and its last one returns above.
  return { kind: "failed", error: "no runtime answered", retryable: false };
}
