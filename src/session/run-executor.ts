import { deriveKey } from "../auth/purpose-keys";
import { mintRunToken } from "../auth/run-token";
import { findAgent } from "../config/agents";
import { keyOptionsOf } from "../config/key-options";
import type { AgentConfig, SwitchboardConfig } from "../config/schema";
import { readSecret } from "../config/secrets";
import { parseSessionKey } from "../keys";
import type { Requester } from "../policy/requester";
import { allowedTools } from "../policy/tool-profiles";
import { runtimeFor } from "../runtimes";
import type { AttachmentRef, RunOutcome } from "../runtimes/types";
import { toolContext } from "../tools/context";
import { executeToolCall } from "../tools/invoke";
import { toolRegistry } from "../tools/registry";
import { toolSpecs } from "../tools/specs";
import type { TranscriptMessage } from "../transcript/message";
import type { SessionMeta } from "./meta";
import type { RunRow } from "./run-store";

/** UTF-8 attachments up to this size are handed to the runtime inline. */
const INLINE_ATTACHMENT_BYTES = 16 * 1024;

/** The session's attachments as runtimes see them. */
function attachmentRefs(sql: SqlStorage, sessionKey: string): AttachmentRef[] {
  return sql
    .exec<{
      name: string;
      mime_type: string | null;
      encoding: string;
      bytes: ArrayBuffer;
      size: number;
      sha256: string;
    }>("SELECT name, mime_type, encoding, bytes, size, sha256 FROM attachment ORDER BY name")
    .toArray()
    .map((row) => ({
      name: row.name,
      ...(row.mime_type ? { mimeType: row.mime_type } : {}),
      size: row.size,
      sha256: row.sha256,
      path: `/v1/sessions/${encodeURIComponent(sessionKey)}/attachments/${encodeURIComponent(row.name)}`,
      ...(row.encoding === "utf8" && row.size <= INLINE_ATTACHMENT_BYTES
        ? { text: new TextDecoder().decode(row.bytes) }
        : {}),
    }));
}

/** How many earlier messages a runtime sees. */
const HISTORY_MESSAGES = 40;
/** Transient failures (429, 5xx, network) are retried this many times, with doubling backoff. */
export const MAX_TRANSIENT_RETRIES = 2;
const RETRY_BASE_MS = 200;
/** A run token outlives its run by this much, for the announce step (SPEC §3). */
const RUN_TOKEN_GRACE_SECONDS = 300;

export interface ExecutionContext {
  env: Env;
  sql: SqlStorage;
  config: SwitchboardConfig;
  meta: SessionMeta;
  run: RunRow;
  deadlineAt: number;
  signal: AbortSignal;
  /** Records a transient failure that is about to be retried. */
  onRetry: (note: string) => void;
}

function storedMessages(sql: SqlStorage, where: string, ...params: unknown[]): TranscriptMessage[] {
  return sql
    .exec<{ body: string }>(`SELECT body FROM message WHERE ${where}`, ...params)
    .toArray()
    .map((row) => JSON.parse(row.body) as TranscriptMessage);
}

/** The session a run acts as: its tools and run token follow from this. */
export function runRequester(
  config: SwitchboardConfig,
  meta: SessionMeta,
  run: RunRow,
  hop: number,
): Requester & { hop: number } {
  const parsed = parseSessionKey(meta.sessionKey, keyOptionsOf(config));
  return {
    agentId: meta.agentId,
    sessionKey: meta.sessionKey,
    depth: meta.spawnDepth,
    sandboxed: findAgent(config, meta.agentId)?.sandbox ?? false,
    isSubagent: parsed?.isSubagent ?? false,
    runId: run.runId,
    hop,
  };
}

/** The agent as this session runs it: a session model override replaces an OpenAI model. */
function effectiveAgent(agent: AgentConfig, meta: SessionMeta): AgentConfig {
  if (!meta.modelOverride || agent.runtime.type !== "openai") return agent;
  return { ...agent, model: meta.modelOverride, runtime: { ...agent.runtime, model: meta.modelOverride } };
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

/** Runs one turn with the session's agent runtime, retrying transient failures a bounded number of times. */
export async function executeRun(context: ExecutionContext): Promise<RunOutcome> {
  const { env, sql, config, meta, run } = context;
  const configured = findAgent(config, meta.agentId);
  if (!configured)
    return { kind: "failed", error: `agent "${meta.agentId}" is not configured`, retryable: false };
  const trigger = storedMessages(sql, "id = ?", run.triggerMessageId ?? "")[0];
  if (!trigger) return { kind: "failed", error: "the run's message is missing", retryable: false };
  const history = storedMessages(
    sql,
    "seq < (SELECT seq FROM message WHERE id = ?) ORDER BY seq DESC LIMIT ?",
    trigger.id,
    HISTORY_MESSAGES,
  ).reverse();
  const requester = runRequester(config, meta, run, trigger.provenance?.hop ?? 0);
  const tools = toolContext(env, config, requester);
  const granted = [...allowedTools(config, requester)].filter((name) => toolRegistry[name]);
  const runToken = env.SWITCHBOARD_SIGNING_KEY
    ? await mintRunToken(env.SWITCHBOARD_SIGNING_KEY, {
        agentId: meta.agentId,
        sessionKey: meta.sessionKey,
        runId: run.runId,
        depth: meta.spawnDepth,
        sandboxed: requester.sandboxed,
        hop: requester.hop,
        exp: Math.ceil(context.deadlineAt / 1000) + RUN_TOKEN_GRACE_SECONDS,
      })
    : "";
  const agent = effectiveAgent(configured, meta);
  const runtime = runtimeFor(agent);
  for (let attempt = 0; ; attempt++) {
    const outcome = await runtime({
      runId: run.runId,
      agent,
      sessionKey: meta.sessionKey,
      sessionId: meta.sessionId,
      message: trigger,
      history,
      ...(run.context ? { context: run.context } : {}),
      attachments: attachmentRefs(sql, meta.sessionKey),
      tools: toolSpecs(granted),
      runToken,
      signal: context.signal,
      callTool: async (name, args) => {
        // A failing tool is the model's problem to read about, not a reason to lose the run.
        try {
          const result = await executeToolCall(tools, name, args);
          return result.ok ? result.details : { status: "error", error: result.message };
        } catch (cause) {
          console.error(`run ${run.runId}: tool ${name} failed`, cause);
          return { status: "error", error: `tool ${name} failed` };
        }
      },
      secret: (name) => readSecret(env, name),
      purposeKey: async (purpose) =>
        env.SWITCHBOARD_SIGNING_KEY ? deriveKey(env.SWITCHBOARD_SIGNING_KEY, purpose) : undefined,
    });
    if (
      outcome.kind !== "failed" ||
      !outcome.retryable ||
      attempt >= MAX_TRANSIENT_RETRIES ||
      context.signal.aborted
    ) {
      return outcome;
    }
    context.onRetry(`attempt ${attempt + 1} failed: ${outcome.error}`);
    await sleep(RETRY_BASE_MS * 2 ** attempt, context.signal);
  }
}
