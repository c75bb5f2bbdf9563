/** What a session is for, derived from the shape of its key (SPEC §1 table). */
export type SessionKind = "main" | "group" | "cron" | "hook" | "node" | "other";

/** The kind of chat a channel key points at; `dm` keys read as `direct`. */
export type ChatType = "direct" | "group" | "channel";

/** `session.scope`: whether direct chats get a session each or all share the agent's `global` one. */
export type SessionScope = "per-sender" | "global";

/** The slice of configuration key handling depends on. */
export interface KeyOptions {
  /** `session.mainKey`, already trimmed and lower-cased by the config loader. */
  mainKey: string;
  scope: SessionScope;
}

/** Everything a canonical session key says about its session. */
export interface ParsedSessionKey {
  /** Canonical: `agent:<agentId>:<rest>`, lower-cased. */
  key: string;
  agentId: string;
  rest: string;
  kind: SessionKind;
  /** The `<channel>` of a `<channel>:group|channel|direct|dm:<id>` key. */
  channel?: string;
  chatType?: ChatType;
  /** The id after `group:` / `channel:` / `direct:` / `dm:`, without any thread or topic suffix. */
  chatId?: string;
  /** From a `:thread:<id>` or `:topic:<id>` suffix. */
  threadId?: string;
  threadScoped: boolean;
  /** `cron:<jobId>:run:<runId>`: one execution of a cron job, hidden from listings. */
  isCronRun: boolean;
  /** The rest starts with `subagent:` (nested sub-agent keys included). */
  isSubagent: boolean;
  /** The rest is `global` or `unknown`, which callers can never address. */
  isReserved: boolean;
}

/** Outcome of turning caller input into a canonical key; domain code returns this instead of throwing. */
export type KeyInputResult = { ok: true; key: string } | { ok: false; error: string };
