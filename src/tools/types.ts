import type { z } from "zod";
import type { AgentApi } from "../agent-object/client";
import type { DailySpend } from "../agent-object/spend";
import type { SwitchboardConfig, ToolName } from "../config/schema";
import type { IndexShards } from "../index-db/shards";
import type { KeyOptions } from "../keys";
import type { ThreadOpened } from "../platforms/platform";
import type { ThreadRequest } from "../platforms/threads";
import type { Requester } from "../policy/requester";
import type { QueueMessage } from "../queue/messages";
import type { SendRecordRequest, SessionApi, TurnRequest } from "../session/api";

/** What a tool handler may use: no HTTP, just the caller, the config and the storage bindings. */
export interface ToolContext {
  requester: Requester;
  /**
   * A tool call made by a run: its idempotency key (`<runId>:<call index>`), so an effect (a spawn, a
   * send) cut off before the run recorded its result is found again when the run resumes, not redone.
   */
  callKey?: string;
  config: SwitchboardConfig;
  keyOptions: KeyOptions;
  /** The session index's D1 shards (src/index-db/shards.ts). */
  shards: IndexShards;
  /** The session object of a canonical key. */
  session: (sessionKey: string) => SessionApi;
  /**
   * Records a handoff in the requester's own object (SessionApi.recordSend): through its stub from the
   * Worker; a run's tools, which run in that object, call it directly.
   */
  recordSend: (send: SendRecordRequest) => ReturnType<SessionApi["recordSend"]>;
  /** Waits (server-side, surviving an object restart) for a run of a session to end. */
  waitForRun: (sessionKey: string, runId: string, timeoutMs: number) => ReturnType<SessionApi["waitForRun"]>;
  /** Queues a turn in a session and waits for its run like `waitForRun`, in one call to the object. */
  sendTurnAndWait: (
    sessionKey: string,
    turn: TurnRequest,
    timeoutMs: number,
  ) => ReturnType<SessionApi["waitForRun"]>;
  /** An agent's spend on a UTC day (`YYYY-MM-DD`), from its agent object (SPEC §20 budgets). */
  agentSpend: (agentId: string, day: string) => Promise<DailySpend>;
  /**
   * Opens a thread on a chat platform for a sub-agent (`sessions_spawn { thread: true }`, SPEC §21): the
   * platform's API, with the channel's bot token, which never leaves it.
   */
  openThread: (request: ThreadRequest) => Promise<ThreadOpened>;
  /** An agent's object: its scheduler (SPEC §22, the cron tool). */
  agent: (agentId: string) => AgentApi;
  /** Puts a message durably on the deliveries queue (resolves once the queue has it). */
  sendToQueue: (message: QueueMessage) => Promise<void>;
  /**
   * Keeps work the answer need not wait for alive after it (a Worker request's `waitUntil`); absent
   * where the caller outlives the call anyway (a run's tool call in its object), which then awaits it.
   */
  waitUntil?: (work: Promise<unknown>) => void;
}

/** Policy and lookup failures are results, not HTTP errors (SPEC §5.0). */
export interface ToolFailure {
  status: "error" | "forbidden";
  error: string;
}

export interface ToolDefinition<Schema extends z.ZodObject> {
  name: ToolName;
  description: string;
  /** The one schema: request validation, MCP inputSchema, OpenAPI and function-tool schema. */
  schema: Schema;
  handler: (ctx: ToolContext, params: z.output<Schema>) => Promise<object>;
  /**
   * The text a model reads of a result (`content[0].text`) when it is not the compact JSON of the
   * details; undefined falls back to that JSON.
   */
  resultText?: (details: object) => string | undefined;
}

/**
 * Any tool, as the registry and its callers hold it: they parse a call's args with the tool's own
 * `schema` before calling its `handler`, so the handler's params are only "some object" here. The one
 * place a tool's params type is erased: `handler` is a method, whose parameter TypeScript compares both
 * ways, so every `ToolDefinition<Schema>` is an `AnyTool` without a cast.
 */
export interface AnyTool {
  name: ToolName;
  description: string;
  schema: z.ZodObject;
  handler(ctx: ToolContext, params: Record<string, unknown>): Promise<object>;
  resultText?: (details: object) => string | undefined;
}

/** Declares a tool with its schema's types flowing into the handler. */
export function defineTool<Schema extends z.ZodObject>(
  definition: ToolDefinition<Schema>,
): ToolDefinition<Schema> {
  return definition;
}
