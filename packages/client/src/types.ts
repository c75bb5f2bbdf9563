// What the server answers, tool by tool and route by route. Plain types (the args and the records they are
// made of live in args.ts and records.ts); test/client/types-match.ts checks them against the server's.
import type { CreateGrantBody } from "./args.ts";
import type {
  DeliveryRecord,
  DeliveryStatus,
  RunProgress,
  SessionEvent,
  SessionRow,
  StructuredAnswer,
  SubagentItem,
  ToolFailure,
  TranscriptMessage,
} from "./records.ts";

export type * from "./args.ts";
export type * from "./records.ts";

/** A `subagents list` item: the child's latest run, its running descendants and its completion's delivery. */
export type SubagentListItem = SubagentItem & {
  pendingDescendants: number;
  runtime: string;
  deliveryStatus: DeliveryStatus;
};

/** `sessions_list` (SPEC §5.1). */
export interface SessionsListResult {
  count: number;
  sessions: SessionRow[];
  /** More rows follow: page on with `nextCursor`, or `nextOffset` (absent after a `cursor` page). */
  hasMore: boolean;
  /** The `limit` after clamping (1–200, default 50). */
  limitApplied: number;
  nextCursor?: string;
  nextOffset?: number;
}

/** `sessions_history` (SPEC §5.2): a page of messages made safe. */
export interface SessionsHistoryPage {
  sessionKey: string;
  /** Oldest first, made safe: reasoning removed, secrets masked, long texts cut. */
  messages: TranscriptMessage[];
  /** Older messages exist: `nextOffset` pages back. */
  hasMore: boolean;
  nextOffset?: number;
  /** Every message ever written, those retention trimmed included. */
  totalMessages: number;
  /** The page reaches older messages retention (`maxMessages`) removed: nothing older is left. */
  historyGap?: true;
  /** Whole messages were left out to keep the page under its byte cap. */
  droppedMessages: boolean;
  /** A text was cut. */
  contentTruncated: boolean;
  /** A secret was masked. */
  contentRedacted: boolean;
  /** The page's size in bytes. */
  bytes: number;
  truncated: boolean;
}

export interface SendDelivery {
  /** `skipped`: no announce step follows (a sub-agent on either side, or `no_reply`). */
  status: "pending" | "skipped";
  mode: "announce";
}

/** How the target took the message: a new turn, or steered into its active run (`mode: "steer"`). */
export type TargetDisposition = "queued" | "steered";

/** What every `sessions_send` outcome whose message the target took carries. */
interface SendTaken {
  runId: string;
  sessionKey: string;
  targetDisposition: TargetDisposition;
  delivery: SendDelivery;
  /** SPEC §13: whether the requester now watches the target; only when `watch` was passed. */
  watched?: boolean;
}

/** `sessions_send` (SPEC §5.3, §14): every outcome, refusals included, is a result. */
export type SessionsSendResult =
  | (SendTaken & { status: "accepted" })
  | (SendTaken & { status: "ok"; reply?: string })
  | (SendTaken & { status: "no_reply"; message: string })
  | {
      runId: string;
      status: "timeout" | "error";
      error: string;
      sessionKey?: string;
      /** The message is in the target: a timeout or run failure is not a failed delivery. */
      sentBeforeError?: true;
      /** On a timeout whose run goes on: where it is. */
      runStatus?: "queued" | "running";
      watched?: boolean;
    }
  | { runId: string; status: "forbidden"; error: string; sessionKey?: string };

/** `sessions_spawn` (SPEC §5.4): accepted at once; the completion is announced to the requester later. */
export type SessionsSpawnResult =
  | {
      status: "accepted";
      childSessionKey: string;
      runId: string;
      mode: "run" | "session";
      note?: string;
      expectsCompletionMessage: boolean;
      context: "isolated" | "fork";
      resolvedModel: string;
      modelApplied: boolean;
      /** A collector (SPEC §15): its result is collected with agents_wait, never announced. */
      collect?: true;
      groupId?: string;
      attachments?: {
        count: number;
        totalBytes: number;
        files: { name: string; bytes: number; sha256: string }[];
        relDir: string;
      };
    }
  | ToolFailure;

/** `sessions_yield` (SPEC §5.5): only inside a run, with its run token. */
export type SessionsYieldResult = { status: "yielded"; message: string } | ToolFailure;

/**
 * `subagents` (SPEC §5.6, §15): `list`, `wait`, `cancel`, `kill` or `steer`; refusals (and
 * `rate_limited` steers) are results.
 */
export type SubagentsResult =
  | {
      status: "ok";
      action: "list";
      requesterSessionKey: string;
      callerSessionKey: string;
      callerIsSubagent: boolean;
      total: number;
      active: SubagentListItem[];
      recent: SubagentListItem[];
      text: string;
    }
  | {
      status: "ok";
      action: "wait";
      reason: "unavailable" | "attention" | "completed" | "timeout";
      runs: RunProgress[];
      completed: string[];
      attention: string[];
      unavailable?: string[];
    }
  | { status: "ok"; action: "kill"; killed: number; labels: string[]; text: string }
  | { status: "ok"; action: "cancel"; runId?: string; killed: number; labels: string[]; text: string }
  | { status: "accepted"; runId: string; sessionKey: string; mode: "restart" }
  | { status: "error" | "forbidden" | "rate_limited"; action?: string; error: string };

/** `sessions` (SPEC §17): patch or delete a session; refusals are results. */
export type SessionsResult =
  | { status: "updated"; sessionKey: string; updated: string[] }
  | { status: "scheduled"; sessionKey: string; message: string }
  | { status: "deleted"; sessionKey: string }
  | ToolFailure;

/** `session_status` (SPEC §5.7). */
export interface SessionStatusCard {
  ok: true;
  sessionKey: string;
  agentId: string;
  changedModel: boolean;
  /** The session's state version (SPEC §13); 0 for a session never written. */
  stateVersion: number;
  statusText: string;
  /** The session's runs' estimated cost in USD, summed; absent without pricing. */
  estimatedCostUsd?: number;
}

/** `agents_wait` (SPEC §15): collector results, in the order they arrived; per-id errors are no failure. */
export interface AgentsWaitResult {
  completed: {
    runId: string;
    status: "done" | "failed" | "killed" | "timeout";
    result: string;
    structured?: unknown;
    error?: string;
    schemaError?: string;
    sessionKey: string;
    label?: string;
    usage?: { inputTokens: number; outputTokens: number };
  }[];
  pending: string[];
  errors?: { runId: string; error: "not_found" | "not_owner" }[];
  /** Only when no id was the caller's to wait on. */
  success?: false;
  /** Ours: completed results past 256 KiB of JSON were left out; `omitted` names them (ask for them again). */
  truncated?: true;
  omitted?: string[];
}

/** `agents_list` (SPEC §5.8). */
export interface AgentsListResult {
  requester: string;
  allowAny: boolean;
  agents: { id: string; label?: string; sandboxed: boolean }[];
}

/** `/tools/invoke`'s result envelope (SPEC §5.0). */
export interface ToolEnvelope<Details = Record<string, unknown>> {
  content: { type: "text"; text: string }[];
  details: Details;
}

export interface HealthResult {
  ok: boolean;
  version: string;
  /** Where the server's configuration comes from: `SWITCHBOARD_CONFIG`, or its bundled `config/<env>.json`. */
  config: string;
  /** Secrets the configuration names that the server lacks (names only). */
  missingSecrets?: string[];
}

export interface RunResultBody {
  text: string;
  usage?: { input?: number; output?: number; total?: number };
}

/** A created grant; `token` is shown only in this answer. `expiresAt` is ms since the epoch. */
export interface CreatedGrant {
  grantId: string;
  token: string;
  expiresAt: number;
  sessionKey: string;
  scopes: CreateGrantBody["scopes"];
}

/** A grant as `GET /v1/grants` lists it (never its token). Times are ms since the epoch. */
export interface ListedGrant {
  grantId: string;
  sessionKey: string;
  /** The session it was made for (absent: a grant from before D1 migration 0009). */
  sessionId?: string;
  scopes: CreateGrantBody["scopes"];
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
}

/** What one `enforce` call did for an agent (SPEC §23). */
export interface MaintenanceEnforced {
  archived: number;
  deleted: number;
  /** Idle in the index, but busy again or with a run in flight: left alone. */
  skipped: number;
  searchRows: number;
  runIndexRows: number;
  grants: number;
}

/** One agent's storage and what its retention policy would do now. */
export interface AgentMaintenanceReport {
  agentId: string;
  sessions: number;
  /** Messages the transcripts keep. */
  messages: number;
  /** The session objects' storage, as each last reported it. */
  objectBytes: number;
  wouldArchive: number;
  wouldDelete: number;
  largest: { sessionKey: string; bytes: number }[];
  enforced?: MaintenanceEnforced;
  /** `enforce`: false while more is due for this agent. */
  done?: boolean;
}

/** `POST /v1/maintenance`'s answer: every agent's storage, each D1 shard's size. */
export interface MaintenanceReport {
  mode: "dry-run" | "enforce";
  agents: AgentMaintenanceReport[];
  /** `shard` is the D1 binding: `DB`, `DB_1`, … */
  shards: { shard: string; bytes: number }[];
  /** `enforce`: false while more is due: call again. */
  done?: boolean;
}

// Live streams (SPEC §14): what `events()`, `runEvents()` and `sendStreamed()` yield.

/** One event of a session's log, as its stream carries it. */
export type SessionStreamEvent = SessionEvent & {
  /** A `message` event's message: the sessions_history safe view (the exact one with the operator's `raw`). */
  message?: TranscriptMessage;
  /** Whose event it is, on a tree stream (the session's own or a sub-agent's). */
  sessionKey?: string;
  /** The stream's id for this event: pass it as `after` to resume here (a tree stream's is opaque). */
  cursor: string;
};

/** Events between the cursor and `earliestAvailableSequence` were pruned: they will never arrive. */
export interface StreamGap {
  kind: "gap";
  after: number;
  earliestAvailableSequence: number;
  sessionKey?: string;
}

/** What a session stream yields: its events in order, and a gap where pruned events were. */
/**
 * On a tree stream: this many of the tree's sessions (seen spawned by sessions it reads) may not be read
 * with this credential, so their events are left out. Sent first, and again when the count grows.
 */
export interface StreamHidden {
  kind: "hidden";
  sessions: number;
}

export type SessionStreamItem = SessionStreamEvent | StreamGap | StreamHidden;

interface RunItemBase {
  /** Counts within the run, from 1. */
  seq: number;
  runId: string;
  occurredAt: number;
  /** The stream's id for this item (its seq as text): pass it as `after` to resume here. */
  cursor: string;
}

/** One item of a run stream; the stream ends after `run_completed` or `run_failed`. */
export type RunStreamItem = RunItemBase &
  (
    | { kind: "run_queued" | "run_started" | "steered"; data?: Record<string, unknown> }
    /** Reply text to add; `reset` (with empty text): a retried attempt restarts the reply. */
    | { kind: "delta"; data: { text: string; reset?: true } }
    | { kind: "progress"; data: { message: string } }
    | { kind: "tool_call"; data: { name: string; args: unknown } }
    | { kind: "tool_result"; data: { name: string; status: string } }
    | { kind: "run_completed"; data: { status: "ok"; reply?: string } }
    | { kind: "run_failed"; data: { outcome: string; error?: string } }
  );

export interface StreamOptions {
  /** Resume after this cursor (a seq, or a tree stream's cursor); a session stream without it is live only. */
  after?: number | string;
  /** Stops the stream: the iteration ends (it does not throw). */
  signal?: AbortSignal;
}

export interface SessionStreamOptions extends StreamOptions {
  /** Sub-agents' events too, each with its `sessionKey`. */
  tree?: boolean;
  /** The exact messages instead of the safe view (operator only). */
  raw?: boolean;
}

// The delivery ledger (SPEC §16): the operator API's query and page.

/** A page of delivery records, newest first; `nextCursor` is absent on the last page. */
export interface DeliveriesPage {
  count: number;
  deliveries: DeliveryRecord[];
  nextCursor?: string;
  /**
   * An agent token's first page: how many records of other agents' sessions match the filters and are
   * addressed to its own sessions (a sub-agent's completion, a watch notice); the operator lists them.
   */
  hiddenByVisibility?: number;
}

/** `structured_output`: recorded, a validation error asking for one retry, or rejected for good. */
export type StructuredOutputResult = StructuredAnswer | ToolFailure;

/** A `sessions_search` hit (SPEC §18): one message, its snippet made safe like sessions_history. */
export interface SessionsSearchHit {
  sessionKey: string;
  sessionId: string;
  messageId: string;
  /** `toolResult`/`tool` only with `includeTools`. */
  role: "user" | "assistant" | "toolResult" | "tool";
  timestamp: number;
  /** At most 300 characters around the first match, `…` where cut. */
  snippet: string;
  /** -bm25: higher is better. */
  score: number;
}

/** `sessions_search` (SPEC §18): the best hits first, at most 32 KiB. */
export interface SessionsSearchResult {
  results: SessionsSearchHit[];
  /** More hits than the page, or hits the byte cap left out: `nextCursor` pages on. */
  truncated?: true;
  nextCursor?: string;
  /** A searched session's transcript is still being indexed (with OpenClaw's `warning`). */
  indexing?: true;
  warning?: string;
}

// A chat platform channel's setup (SPEC §21): the operator token only.

/** `POST /v1/channels/{name}/connect`: what was set on the platform, or (Slack) what to paste. */
export interface ChannelConnectAnswer {
  channel: string;
  platform: "telegram" | "slack" | "discord";
  /** Telegram's webhook, Discord's commands, or nothing (Slack: paste the manifest). */
  done: "setWebhook" | "commands" | "nothing";
  /** The channel's `POST /v1/channels/{name}/messages` as the platform calls it. */
  url?: string;
  allowedUpdates?: string[];
  commands?: string[];
  manifest?: Record<string, unknown>;
  paste?: string;
}

/** `GET /v1/channels/{name}/status`: the platform's view beside ours. */
export interface ChannelStatus {
  channel: string;
  platform: "webhook" | "telegram" | "slack" | "discord";
  /**
   * The platform's own view in its field names, or `{ error }`: Telegram `getWebhookInfo` (url,
   * pending_update_count, last_error_date, last_error_message), Slack `auth.test` (team, user, …),
   * Discord `applications/@me` (id, name, interactions_endpoint_url, bot_username, commands, ask_registered).
   */
  platformView?: Record<string, unknown>;
  ours: {
    lastInboundAt?: number;
    lastInboundOutcome?: string;
    lastIgnoredReason?: string;
    ignoredCount: number;
    lastDeliveryError?: {
      deliveryId: string;
      sessionKey: string;
      target: string;
      status: string;
      lastError: string;
      updatedAt: number;
    };
  };
}
