// What the client sends: each tool's args and each route's body or query, as plain types so the published
// package carries no server code. The server's zod schemas stay the source: test/client/types-match.ts
// fails the repository's typecheck when one of these differs from the input type of its schema.
import type { DeliveryContext, DeliveryKind, DeliveryStatus, TranscriptMessage } from "./records.ts";

/** `sessions_list` (SPEC §5.1). */
export interface SessionsListArgs {
  /** Any of main, group, cron, hook, node, other. */
  kinds?: string[];
  /** Rows per page, default 50, at most 200. */
  limit?: number;
  /** Only sessions updated in the last N minutes. */
  activeMinutes?: number;
  /** 0–20 recent messages per row (tool messages removed). */
  messageLimit?: number;
  label?: string;
  agentId?: string;
  /** Case-insensitive match over display name, label, subject, sessionId and key. */
  search?: string;
  includeDerivedTitles?: boolean;
  includeLastMessage?: boolean;
  /** false (default): unarchived sessions; true: archived only; "all": both. */
  archived?: boolean | "all";
  /** true: the same as `archived: "all"`. */
  includeArchived?: boolean;
  /** `nextCursor` from the previous page. */
  cursor?: string;
  /** Skip this many rows (`nextOffset` pages on). */
  offset?: number;
}

/** `sessions_history` (SPEC §5.2). */
export interface SessionsHistoryArgs {
  /** A session key, "main", "current" or a sessionId. */
  sessionKey: string;
  limit?: number;
  /** Skip this many of the newest messages (`nextOffset` pages back). */
  offset?: number;
  includeTools?: boolean;
}

/** `sessions_send` (SPEC §5.3): `sessionKey` or `label` names the target. */
export interface SessionsSendArgs {
  message: string;
  sessionKey?: string;
  label?: string;
  agentId?: string;
  /** Seconds to wait for the reply (default 30; 0: do not wait). */
  timeoutSeconds?: number;
  idempotencyKey?: string;
  mode?: "followup" | "steer";
  /** Be told (a hidden notice) when someone else later writes into the target. */
  watch?: boolean;
}

/** `session_status` (SPEC §5.7). */
export interface SessionStatusArgs {
  sessionKey?: string;
  /** A configured model, or "default" to clear the override. */
  model?: string;
  /** A stateVersion seen before: also answer the session's events after it. */
  changesSince?: number;
}

/** `agents_list` takes no args. */
export type AgentsListArgs = Record<string, never>;

/** `sessions_spawn` (SPEC §5.4, §15). */
export interface SessionsSpawnArgs {
  [name: string]: unknown;
  task: string;
  label?: string;
  agentId?: string;
  model?: string;
  thinking?: string;
  /** Abort the run after N seconds (0: no timeout). */
  runTimeoutSeconds?: number;
  /** The legacy name of `runTimeoutSeconds`. */
  timeoutSeconds?: number;
  thread?: boolean;
  mode?: "run" | "session";
  cleanup?: "delete" | "keep";
  sandbox?: "inherit" | "require";
  /** fork: the child starts with a copy of the requester's transcript. */
  context?: "isolated" | "fork";
  attachments?: {
    name: string;
    content: string;
    encoding?: "utf8" | "base64";
    mimeType?: string;
  }[];
  attachAs?: { mountPath?: string };
  idempotencyKey?: string;
  /** A collector: nothing is announced; collect its result with `agents_wait` by its runId. */
  collect?: boolean;
  /** Collect only: a JSON Schema the child's `structured_output` result must match (or its JSON text). */
  outputSchema?: Record<string, unknown> | string;
  /** Collect only: the collector group (default: the requester run's). */
  groupId?: string;
  /** POST the child's run outcome here, signed, when it ends; its origin must be in webhooks.allowedOrigins. */
  webhook?: string;
}

/** `sessions_yield` (SPEC §5.5). */
export interface SessionsYieldArgs {
  message?: string;
}

/** `subagents` (SPEC §5.6, §15); `action` defaults to list. */
export interface SubagentsArgs {
  action?: "list" | "wait" | "cancel" | "steer" | "kill";
  target?: string;
  /** steer: the new instruction. */
  message?: string;
  /** list: how far back finished runs show (1–1440, default 30). */
  recentMinutes?: number;
  /** wait: the runs to wait for. */
  runIds?: string[];
  /** cancel: the run to stop, with its descendants. */
  runId?: string;
  /** wait: 0–60 seconds (default 30); 0 is a snapshot. */
  timeoutSeconds?: number;
}

/** `sessions` (SPEC §17): patch or delete a session; `null` clears a field. */
export interface SessionsArgs {
  action: "patch" | "delete";
  sessionKey?: string;
  /** The sessionId read before: the change applies only to that session. */
  expectedSessionId?: string;
  label?: string | null;
  displayName?: string | null;
  archived?: boolean;
  pinned?: boolean;
  model?: string;
  thinkingLevel?: string | null;
}

/** `sessions_search` (SPEC §18). */
export interface SessionsSearchArgs {
  /** Words to find; each must occur. */
  query: string;
  sessionKey?: string;
  limit?: number;
  includeTools?: boolean;
  role?: "user" | "assistant";
  /** `nextCursor` from the previous page. */
  cursor?: string;
}

/** `agents_wait` (SPEC §15). */
export interface AgentsWaitArgs {
  [name: string]: unknown;
  ids: string[];
  timeoutSeconds?: number;
}

/** `structured_output` (SPEC §15): only for a collector child spawned with an outputSchema. */
export interface StructuredOutputArgs {
  result: unknown;
}

/** `POST /v1/sessions`. */
export interface CreateSessionBody {
  agentId?: string;
  key?: string;
  label?: string;
  displayName?: string;
  subject?: string;
  channel?: string;
  chatType?: "direct" | "group" | "channel";
  deliveryContext?: DeliveryContext;
}

/** `PATCH /v1/sessions/{key}`; `null` clears a field. */
export interface PatchSessionBody {
  label?: string | null;
  displayName?: string | null;
  sendPolicy?: "allow" | "deny" | null;
  model?: string | null;
  thinkingLevel?: string | null;
  archived?: boolean;
  /** With `archived`: the sessionId read before (a newer session under the key answers 409). */
  expectedSessionId?: string;
}

/** One message of `POST /v1/sessions/{key}/transcript`: stored as it is, idempotent by `id`. */
export type ImportMessage = TranscriptMessage;

/** `POST /v1/sessions/{key}/messages` (chat.send). */
export interface SendMessageBody {
  text: string;
  idempotencyKey?: string;
  stream?: boolean;
  /** POST the run's outcome here, signed, when it ends; its origin must be in webhooks.allowedOrigins. */
  webhook?: string;
}

/** `POST /v1/grants` (SPEC §18): one session, some of read/send/events, 60 s to 7 days. */
export interface CreateGrantBody {
  sessionKey: string;
  scopes: ("read" | "send" | "events")[];
  ttlSeconds: number;
}

/** The query of `GET /v1/sessions/{key}/history`, as `sessions_history` takes it. */
export interface HistoryQuery {
  limit?: number;
  offset?: number;
  includeTools?: boolean;
}

/** The query of `GET /v1/deliveries`; `cursor` is a previous page's `nextCursor`. */
export interface DeliveriesQuery {
  status?: DeliveryStatus;
  sessionKey?: string;
  kind?: DeliveryKind;
  cursor?: string;
  /** 1–200, default 50. */
  limit?: number;
}
