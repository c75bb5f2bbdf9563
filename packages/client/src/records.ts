// What the server's answers are made of: sessions, messages, runs, deliveries, events. Plain types, so the
// published package carries no server code; test/client/types-match.ts fails the repository's typecheck
// when one of these differs from the server's own type.

/** Where a session's replies go (SPEC §1); a numeric threadId stays numeric. */
export interface DeliveryContext {
  channel: string;
  to: string;
  accountId?: string;
  threadId?: string | number;
}

/** A session as the tools and REST return it (SPEC §5.1 row fields; only those with values). */
export interface SessionRow {
  /** The display key (`main` for the internal `global` one). */
  key: string;
  agentId: string;
  kind: string;
  channel: string;
  sessionId: string;
  label?: string;
  displayName?: string;
  subject?: string;
  createdAt?: number;
  updatedAt: number;
  model?: string;
  contextTokens?: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  estimatedCostUsd?: number;
  status?: "running" | "done" | "failed" | "killed" | "timeout";
  startedAt?: number;
  endedAt?: number;
  runtimeMs?: number;
  spawnedBy?: string;
  parentSessionKey?: string;
  /** sessions_list: the keys of the sessions this one spawned that the caller may see, newest first. */
  childSessions?: string[];
  spawnDepth?: number;
  thinkingLevel?: string;
  verboseLevel?: string;
  systemSent?: boolean;
  abortedLastRun?: boolean;
  sendPolicy?: "allow" | "deny";
  lastChannel?: string;
  lastTo?: string;
  deliveryContext?: DeliveryContext;
  derivedTitle?: string;
  lastMessagePreview?: string;
  archived?: boolean;
  pinned?: boolean;
  /** The session's last event seq (SPEC §13), present once above 0. */
  stateVersion?: number;
  /** How many times the session was compacted (SPEC §20), present once above 0; not on list rows. */
  compactionCount?: number;
  /** With sessions_list `messageLimit`: the newest messages, made safe. */
  messages?: unknown[];
}

/** One block of a message's content; other fields a block carries are kept as they are. */
export type ContentBlock =
  | { [field: string]: unknown; type: "text"; text: string }
  | { [field: string]: unknown; type: "thinking"; thinking: string }
  | { [field: string]: unknown; type: "toolCall"; name: string; id?: string; arguments?: unknown }
  | { [field: string]: unknown; type: "image"; data?: string; mimeType?: string };

/** Where a message came from (SPEC §2). */
export interface Provenance {
  [field: string]: unknown;
  kind: "external_user" | "inter_session" | "subagent_task" | "subagent_completion" | "system";
  sourceSessionKey?: string;
  sourceChannel?: string;
  sourceTool?: string;
  /** How many sessions_send hops led here: cuts A→B→C→A loops. */
  hop?: number;
  /** The scheduled job that started this turn (SPEC §22, `sourceTool: "cron"`), and where its answer goes. */
  job?: { id: string; name: string; deliverTo?: string };
}

/** A transcript message, OpenClaw's shape; fields beyond these are kept as they are. */
export interface TranscriptMessage {
  [field: string]: unknown;
  id: string;
  role: "user" | "assistant" | "toolResult" | "tool" | "system";
  content: string | ContentBlock[];
  /** Milliseconds since the epoch. */
  timestamp: number;
  provenance?: Provenance;
  model?: string;
  provider?: string;
  stopReason?: string;
  isError?: boolean;
  toolCallId?: string;
  toolName?: string;
  usage?: unknown;
  cost?: unknown;
  details?: unknown;
  runId?: string;
}

/** `POST /v1/sessions/{key}/transcript`'s receipt. */
export interface ImportReceipt {
  imported: number;
  skipped: number;
  totalMessages: number;
}

/** `POST /v1/sessions/{key}/compact`'s answer (SPEC §20): compacted, or why not (the session unchanged). */
export interface CompactionAnswer {
  compacted: boolean;
  reason?: string;
  operationId?: string;
  /** Messages the new summary covers now, and the newest kept verbatim. */
  summarizedMessages?: number;
  keptMessages?: number;
  /** The session's compactions so far, this one included. */
  compactionCount: number;
}

/** What an erasure removed, per store (SPEC §23): `DELETE /v1/sessions/{key}?erase=true`, `POST /v1/erase`. */
export interface ErasedCounts {
  /** Sessions deleted (not counting their children). */
  sessions: number;
  /** Messages in other sessions replaced by `[erased]`. */
  messages: number;
  /** Search index rows of those messages deleted. */
  searchRows: number;
  /** Descendant sessions erased and deleted. */
  children: number;
  /** `sent` records in other sessions whose text was dropped (and a never-created requester's, deleted). */
  sent: number;
  /** Watchers of other sessions, and watch notices owed them, removed. */
  notices: number;
  /** Messages in other sessions (tool results, replies) whose exact quotes of the text were replaced. */
  quotes: number;
  /** Other sessions' compaction summaries dropped (built from an erased message) or rewritten. */
  summaries: number;
  /** Entries other sessions still owed (queued sends, posts) rewritten. */
  pending: number;
}

/** A tool's refusal: a result, not an HTTP error. */
export interface ToolFailure {
  status: "error" | "forbidden";
  error: string;
}

export type RunStatus = "queued" | "running" | "ok" | "error" | "timeout" | "killed";

/** A run's tokens, summed over its model calls. */
export interface RunUsage {
  input: number;
  output: number;
  total: number;
  /** Input tokens read from / written to the provider's prompt cache, where it reports them. */
  cacheRead?: number;
  cacheWrite?: number;
  /** USD by the answering runtime's `pricing`; absent without pricing (never 0 for unknown). */
  estimatedCostUsd?: number;
  /** What the run's last model call had in context (the session's `totalTokens`). */
  lastCallTokens?: number;
}

/** `GET /v1/runs/{runId}`. */
export interface RunRecord {
  runId: string;
  sessionKey: string;
  status: RunStatus;
  deferred: boolean;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  usage?: RunUsage;
  /** The model and provider that answered (a fallback's when one did). */
  model?: string;
  provider?: string;
  reply?: string;
  error?: string;
  attempts: number;
  retries: string[];
  /** An ended collector run's recorded structured_output result (SPEC §15). */
  structured?: unknown;
  /** Why an ended collector run with an outputSchema has no valid result (it then ended `error`). */
  schemaError?: string;
}

/** `POST /v1/runs/{runId}/wait` (and a webhook agent's posted result): SPEC agent.wait. */
export interface RunWaitResult {
  runId: string;
  /** `error`: failed or killed; `timeout`: the wait, or the run, ran out. */
  status: "ok" | "error" | "timeout";
  runStatus: RunStatus;
  reply?: string;
  error?: string;
  startedAt?: number;
  endedAt?: number;
}

/** What a delivery hands over (SPEC §16): a sub-agent completion, a channel post, a watch notice. */
export type DeliveryKind = "completion" | "announce" | "reply" | "notice" | "webhook";

/** Where a delivery stands (SPEC §16). `in_progress`: handed to the Queue, its consumer reports back. */
export type DeliveryStatus =
  | "pending"
  | "in_progress"
  | "delivered"
  | "not_required"
  | "failed"
  | "suspended"
  | "dismissed";

/** A delivery record (SPEC §16), on the producing session's side. */
export interface DeliveryRecord {
  deliveryId: string;
  kind: DeliveryKind;
  runId?: string;
  sessionKey: string;
  /** Who it is for: a session key, a watcher's key, or a channel address `channel:to[#thread]`. */
  target: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt?: number;
  lastError?: string;
  /** A platform post split in parts (SPEC §21): how many parts are out; a retry sends the rest. */
  partsSent?: number;
  createdAt: number;
  updatedAt: number;
}

/** A run as `subagents` sees it (SPEC §15): a run that yielded is `waiting`. */
export interface RunProgress {
  runId: string;
  sessionKey: string;
  label: string;
  status: "running" | "waiting" | "done" | "failed" | "timeout" | "killed";
  outcome?: { status: "ok" | "error" | "timeout" | "killed"; error?: string };
  deliveryStatus: DeliveryStatus;
  startedAt: number;
  endedAt?: number;
}

/** A `subagents list` child. */
export interface SubagentItem {
  index: number;
  runId?: string;
  sessionKey: string;
  label?: string;
  task?: string;
  status: string;
  runtimeMs?: number;
  model?: string;
  totalTokens?: number;
  startedAt?: number;
  endedAt?: number;
}

/** One event of a session's log (SPEC §13). */
export interface SessionEvent {
  seq: number;
  kind:
    | "created"
    | "message"
    | "run_queued"
    | "run_started"
    | "run_completed"
    | "run_failed"
    | "child_spawned"
    | "child_completed"
    | "steered"
    | "patched"
    | "delivery"
    | "archived"
    | "restored"
    | "budget"
    | "compacted"
    | "erased";
  /** Who caused it: a person on a channel, another session, or the session and the service themselves. */
  actor: { type: "human" | "agent" | "system"; id?: string };
  runId?: string;
  occurredAt: number;
  summary: string;
  data?: Record<string, unknown>;
}

/** What a `structured_output` call answers. */
export type StructuredAnswer =
  | { status: "recorded" }
  | { status: "error"; error: string }
  | { status: "rejected"; success: false; schemaError: string };
