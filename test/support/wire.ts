/**
 * What tests read off the wire, typed. The service's own result types come from the client package
 * the rest (error bodies, what the fake services receive) are written down here, once.
 */
import type {
  AgentsListResult,
  AgentsWaitResult,
  SessionStatusCard,
  SessionsHistoryPage,
  SessionsListResult,
  SessionsResult,
  SessionsSearchResult,
  SessionsSendResult,
  SessionsSpawnResult,
  SessionsYieldResult,
  StructuredOutputResult,
  SubagentsResult,
  ToolEnvelope,
  ToolFailure,
} from "../../packages/client/src/index";
import type { OutboundMessage } from "../../src/queue/messages";
import type { AttachmentRef, ToolSpec } from "../../src/runtimes/types";
import type { TranscriptMessage } from "../../src/transcript/message";

export type {
  ImportReceipt,
  RunRecord,
  RunWaitResult,
  SessionRow,
  SessionsListResult,
  SubagentItem,
  SubagentsResult,
  ToolFailure,
} from "../../packages/client/src/index";

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A REST error (src/errors.ts): `{ error: { code, message } }`. */
export interface ApiError {
  error: { code: string; message: string };
}

/** `/tools/invoke`'s error envelope (OpenClaw's shape): `{ ok: false, error: { type, message } }`. */
export interface InvokeError {
  ok: false;
  error: { type: string; message: string };
}

/** `/tools/invoke`'s answer to a call of `Name` it ran: the tool's result in the SPEC §5.0 envelope. */
export interface Invoked<Name extends string = keyof ToolResults> {
  ok: true;
  result: ToolEnvelope<ResultOf<Name>>;
}

/** Either error body, the REST one (`code`) or `/tools/invoke`'s (`ok: false`, `type`), read as one. */
export interface AnyError {
  ok?: false;
  error: { code?: string; type?: string; message: string };
}

/**
 * A union read as one object: every field of every member, optional unless all members have it, typed as
 * the union of what the members say. A value of the union is one of these, so reading it is safe.
 */
export type Loose<U> = Pick<U, keyof U> & {
  [K in Exclude<KeysOfUnion<U>, keyof U>]?: U extends unknown ? (K extends keyof U ? U[K] : never) : never;
};
type KeysOfUnion<U> = U extends unknown ? keyof U : never;

/**
 * A tool's result as a test that expects it to succeed reads it: its success shape, or, when the tool
 * refuses, only `status` (error/forbidden) and `error`, the rest absent (the test's assertions tell).
 */
export type Refusable<Success> = Success & Partial<ToolFailure>;

/** The same for a result that has a `status` of its own: the refusal's status is one more value of it. */
export type RefusableWithStatus<Success extends { status: string }> = Omit<Success, "status"> & {
  status: Success["status"] | ToolFailure["status"];
  error?: string;
};

/** What each tool answers (SPEC §5), as tests read it. */
export interface ToolResults {
  sessions_list: Refusable<SessionsListResult>;
  sessions_history: Refusable<SessionsHistoryPage>;
  session_status: Refusable<SessionStatusCard>;
  agents_list: Refusable<AgentsListResult>;
  sessions_send: Loose<SessionsSendResult>;
  sessions_spawn: RefusableWithStatus<Extract<SessionsSpawnResult, { status: "accepted" }>>;
  sessions_yield: Loose<SessionsYieldResult>;
  subagents: Loose<SubagentsResult>;
  sessions: Loose<SessionsResult>;
  structured_output: Loose<StructuredOutputResult>;
  sessions_search: Refusable<SessionsSearchResult>;
  agents_wait: Refusable<AgentsWaitResult>;
}

/** Any tool's result. */
export type ToolResult = ToolResults[keyof ToolResults];

/** The result type of a tool by name; `unknown` for a name that is not a tool. */
export type ResultOf<Name extends string> = Name extends keyof ToolResults ? ToolResults[Name] : unknown;

/** A message of an OpenAI Chat Completions request, as the openai runtime sends them (src/runtimes/openai.ts). */
export interface ModelMessage {
  role: string;
  /** Text; null on an assistant message that only calls tools. */
  content: string | null;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** A Chat Completions request as the fake model receives it. */
export interface ModelRequest {
  model: string;
  messages: ModelMessage[];
  tools?: { type: string; function: ToolSpec }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

/** A run as a webhook agent receives it (src/runtimes/webhook.ts). */
export interface WebhookPost {
  runId: string;
  agentId: string;
  sessionKey: string;
  sessionId: string;
  message: TranscriptMessage;
  history: TranscriptMessage[];
  provenance?: TranscriptMessage["provenance"];
  context?: string;
  /** The run's whole system prompt: the agent's instructions, then the run context (SPEC §20). */
  system: string;
  attachments: Omit<AttachmentRef, "text">[];
  tools: ToolSpec[];
  runToken: string;
}

/** A delivery as a channel's outbound webhook receives it: the queue's outbound message without `type`. */
export type ChannelPost = Omit<OutboundMessage, "type">;

/** What limit and bad-input checks read off an answer: a tool's or run's result, or an error body (read with errorOf). */
export type Answer = {
  status?: string;
  error?: string | { code?: string; type?: string; message: string };
  runId?: string;
  count?: number;
  imported?: number;
  messages?: unknown[];
  deferred?: boolean;
};

/** The error body of a refused request (`{ error: { code, message } }`, or /tools/invoke's `type`). */
export function errorOf(response: { json: Answer }): { code?: string; type?: string; message: string } {
  const { error } = response.json;
  if (typeof error !== "object") throw new Error(`not an error body: ${JSON.stringify(response.json)}`);
  return error;
}
