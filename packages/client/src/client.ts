import { Bookmarks } from "./bookmarks.ts";
import type { CronAgentQuery, CronJob, CronJobInput, CronJobPatch, CronRun } from "./cron-types.ts";
import { type ClientOptions, type RequestSpec, request } from "./http.ts";
import { runEvents, sendStreamed, sessionEvents } from "./live.ts";
import type {
  AgentsListResult,
  AgentsWaitArgs,
  AgentsWaitResult,
  ChannelConnectAnswer,
  ChannelStatus,
  CompactionAnswer,
  CreatedGrant,
  CreateGrantBody,
  CreateSessionBody,
  DeliveriesPage,
  DeliveriesQuery,
  DeliveryRecord,
  ErasedCounts,
  HealthResult,
  HistoryQuery,
  ImportMessage,
  ImportReceipt,
  ListedGrant,
  MaintenanceReport,
  PatchSessionBody,
  RunRecord,
  RunResultBody,
  RunStreamItem,
  RunWaitResult,
  SendMessageBody,
  SessionRow,
  SessionStatusArgs,
  SessionStatusCard,
  SessionStreamItem,
  SessionStreamOptions,
  SessionsArgs,
  SessionsHistoryArgs,
  SessionsHistoryPage,
  SessionsListArgs,
  SessionsListResult,
  SessionsResult,
  SessionsSearchArgs,
  SessionsSearchResult,
  SessionsSendArgs,
  SessionsSendResult,
  SessionsSpawnArgs,
  SessionsSpawnResult,
  SessionsYieldArgs,
  SessionsYieldResult,
  StreamOptions,
  StructuredOutputArgs,
  StructuredOutputResult,
  SubagentsArgs,
  SubagentsResult,
  ToolEnvelope,
  ToolFailure,
} from "./types.ts";

const DEFAULT_SEND_WAIT_SECONDS = 30;
const DEFAULT_RUN_WAIT_MS = 30_000;
const enc = encodeURIComponent;

/** `/v1/cron/jobs/{jobId}<rest>?agentId=…`. */
function cronPath(jobId: string, rest: string, query: CronAgentQuery): string {
  return `/v1/cron/jobs/${enc(jobId)}${rest}${searchOf(query)}`;
}

/** `?name=value&…` of the query's set fields, or "" when none is set. */
function searchOf(query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.size > 0 ? `?${params}` : "";
}

/**
 * A typed Switchboard client: one method per tool and per REST route. HTTP errors throw
 * `SwitchboardError`s; tool refusals (`{ status: "error" | "forbidden" }`) are results, as on the wire.
 */
export class SwitchboardClient {
  readonly options: Readonly<ClientOptions>;

  constructor(options: ClientOptions = {}) {
    this.options = { ...options, bookmarks: options.bookmarks ?? new Bookmarks() };
  }

  /** The same client with some options changed (another token, another requester session). */
  with(options: ClientOptions): SwitchboardClient {
    return new SwitchboardClient({ ...this.options, ...options });
  }

  #call<T>(spec: RequestSpec): Promise<T> {
    return request<T>(this.options, spec);
  }

  // Tools (SPEC §5), through `POST /v1/tools/{name}`: the result is the tool's details.

  /** Any tool by name, typed or not yet: tools added to the server work before they get a wrapper. */
  tool<T = Record<string, unknown>>(name: string, args: object = {}, serverWaitMs = 0): Promise<T> {
    return this.#call<T>({
      method: "POST",
      path: `/v1/tools/${enc(name)}`,
      body: args,
      serverWaitMs,
      what: name,
    });
  }

  /** OpenClaw's `POST /tools/invoke`: the whole result envelope `{ content, details }`. */
  async invoke<Details = Record<string, unknown>>(
    name: string,
    args: object = {},
  ): Promise<ToolEnvelope<Details>> {
    const answer = await this.#call<{ ok: true; result: ToolEnvelope<Details> }>({
      method: "POST",
      path: "/tools/invoke",
      body: { tool: name, args },
      what: name,
    });
    return answer.result;
  }

  /** `sessions_list`: visible sessions, newest activity first. */
  sessionsList(args: SessionsListArgs = {}): Promise<SessionsListResult> {
    return this.tool("sessions_list", args);
  }

  /** `sessions_history`: a session's newest messages, made safe. */
  sessionsHistory(args: SessionsHistoryArgs): Promise<SessionsHistoryPage | ToolFailure> {
    return this.tool("sessions_history", args);
  }

  /** `sessions_send`: a message into another session; waits `timeoutSeconds` (default 30) for its reply. */
  sessionsSend(args: SessionsSendArgs): Promise<SessionsSendResult> {
    const waitSeconds = Math.max(0, args.timeoutSeconds ?? DEFAULT_SEND_WAIT_SECONDS);
    return this.tool("sessions_send", args, waitSeconds * 1000);
  }

  /** `sessions_spawn`: starts a sub-agent; its completion is announced to the requester session later. */
  sessionsSpawn(args: SessionsSpawnArgs): Promise<SessionsSpawnResult> {
    return this.tool("sessions_spawn", args);
  }

  /** `subagents`: list, wait for, cancel, steer or kill the sub-agents the requester spawned. */
  subagents(args: SubagentsArgs = {}): Promise<SubagentsResult> {
    // A wait is held by the server for up to its timeout (default 30 s, at most 60).
    const waitSeconds = args.action === "wait" ? Math.min(60, Math.max(0, args.timeoutSeconds ?? 30)) : 0;
    return this.tool("subagents", args, waitSeconds * 1000);
  }

  /** `sessions_yield`: ends the caller's current run (call it with that run's token). */
  sessionsYield(args: SessionsYieldArgs = {}): Promise<SessionsYieldResult> {
    return this.tool("sessions_yield", args);
  }

  /** `structured_output`: a collector child's result for its run (call it with that run's token). */
  structuredOutput(args: StructuredOutputArgs): Promise<StructuredOutputResult> {
    return this.tool("structured_output", args);
  }

  /** `session_status`: the status card of a session (default: the requester's). */
  sessionStatus(args: SessionStatusArgs = {}): Promise<SessionStatusCard | ToolFailure> {
    return this.tool("session_status", args);
  }

  /** `agents_list`: the agent ids the requester may spawn. */
  agentsList(): Promise<AgentsListResult> {
    return this.tool("agents_list", {});
  }

  /** `sessions_search`: full-text search over the visible sessions' transcripts, best match first. */
  sessionsSearch(args: SessionsSearchArgs): Promise<SessionsSearchResult | ToolFailure> {
    return this.tool("sessions_search", args);
  }

  /** `agents_wait`: collector results by run id; held by the server until one is in, or its timeout. */
  agentsWait(args: AgentsWaitArgs): Promise<AgentsWaitResult> {
    // Held for up to timeoutSeconds (default 30; the server clamps it to tools.swarm.waitTimeoutSecondsMax).
    return this.tool("agents_wait", args, Math.max(0, args.timeoutSeconds ?? 30) * 1000);
  }

  /** `sessions`: patch (label, archived, pinned, model…) or delete a session the requester can see. */
  sessions(args: SessionsArgs): Promise<SessionsResult> {
    return this.tool("sessions", args);
  }

  // REST (SPEC §9).

  /** `GET /healthz` (no token needed). */
  healthz(): Promise<HealthResult> {
    return this.#call({ method: "GET", path: "/healthz", what: "healthz" });
  }

  /** `POST /v1/sessions`: creates a session (without `key`, a fresh `agent:<id>:api:<uuid>`). */
  createSession(body: CreateSessionBody = {}): Promise<SessionRow> {
    return this.#call({ method: "POST", path: "/v1/sessions", body, what: "create session" });
  }

  /** `GET /v1/sessions/{key}`. */
  getSession(key: string): Promise<SessionRow> {
    return this.#call({ method: "GET", path: `/v1/sessions/${enc(key)}`, what: `session ${key}` });
  }

  /** `PATCH /v1/sessions/{key}`: label, displayName, sendPolicy, model, thinkingLevel (`null` clears). */
  patchSession(key: string, body: PatchSessionBody): Promise<SessionRow> {
    return this.#call({ method: "PATCH", path: `/v1/sessions/${enc(key)}`, body, what: `patch ${key}` });
  }

  /**
   * `DELETE /v1/sessions/{key}`: the session from every store. With `erase` (the operator only) also the
   * copies of its text in other sessions, its children and notices (SPEC §23), counted per store.
   */
  deleteSession(
    key: string,
    options: { erase?: boolean } = {},
  ): Promise<{ deleted: true; erased?: ErasedCounts }> {
    const query = options.erase ? "?erase=true" : "";
    return this.#call({ method: "DELETE", path: `/v1/sessions/${enc(key)}${query}`, what: `delete ${key}` });
  }

  /** `POST /v1/erase`: every direct session of a sender on a channel erased, and their group messages. */
  eraseSender(body: { channel: string; senderId: string }): Promise<{ erased: ErasedCounts }> {
    return this.#call({ method: "POST", path: "/v1/erase", body, what: `erase ${body.channel} sender` });
  }

  /**
   * `POST /v1/sessions/{key}/compact`: summarizes the session's older turns with its agent's model now,
   * keeping the newest verbatim; `compacted: false` says why not (the session is then unchanged).
   */
  compact(key: string): Promise<CompactionAnswer> {
    const path = `/v1/sessions/${enc(key)}/compact`;
    return this.#call({ method: "POST", path, body: {}, what: `compact ${key}` });
  }

  /** `POST /v1/sessions/{key}/transcript`: imports messages as they are, idempotent by `id`. */
  importTranscript(key: string, messages: ImportMessage[]): Promise<ImportReceipt> {
    const path = `/v1/sessions/${enc(key)}/transcript`;
    return this.#call({ method: "POST", path, body: { messages }, what: `import into ${key}` });
  }

  /** `GET /v1/sessions/{key}/transcript.jsonl`: the exact transcript, one JSON message per line. */
  exportTranscript(key: string): Promise<string> {
    const path = `/v1/sessions/${enc(key)}/transcript.jsonl`;
    return this.#call({ method: "GET", path, as: "text", what: `export ${key}` });
  }

  /** `POST /v1/sessions/{key}/messages` (chat.send): queues a run; wait for it with `waitRun`. */
  sendMessage(key: string, body: SendMessageBody): Promise<{ runId: string; status: "accepted" }> {
    const path = `/v1/sessions/${enc(key)}/messages`;
    return this.#call({ method: "POST", path, body, what: `send to ${key}` });
  }

  /** `GET /v1/sessions/{key}/history`: the `sessions_history` safe view (a `read` grant may call it). */
  history(key: string, query: HistoryQuery = {}): Promise<SessionsHistoryPage> {
    return this.#call({
      method: "GET",
      path: `/v1/sessions/${enc(key)}/history${searchOf(query)}`,
      what: `history of ${key}`,
    });
  }

  /** `POST /v1/grants`: a token for one session with some of read/send/events (SPEC §18). */
  createGrant(body: CreateGrantBody): Promise<CreatedGrant> {
    return this.#call({ method: "POST", path: "/v1/grants", body, what: "create grant" });
  }

  /** `GET /v1/grants`: the operator every grant, an agent token its own agent's (never a token). */
  grants(): Promise<{ grants: ListedGrant[] }> {
    return this.#call({ method: "GET", path: "/v1/grants", what: "grants" });
  }

  /**
   * `POST /v1/maintenance` (operator): every agent's storage; `enforce` also applies one bounded batch of
   * the retention policy and answers `done: false` while more is due (call again).
   */
  maintenance(body: { mode: "dry-run" | "enforce" }): Promise<MaintenanceReport> {
    return this.#call({ method: "POST", path: "/v1/maintenance", body, what: `maintenance ${body.mode}` });
  }

  /** `DELETE /v1/grants/{grantId}`: the grant's token is refused from now on. */
  revokeGrant(grantId: string): Promise<{ grantId: string; revoked: true }> {
    return this.#call({
      method: "DELETE",
      path: `/v1/grants/${enc(grantId)}`,
      what: `revoke grant ${grantId}`,
    });
  }

  /** A chat platform channel's setup (SPEC §21), the operator token only. */
  readonly channels = {
    /** `POST /v1/channels/{name}/connect`: Telegram's webhook, Discord's commands set; Slack's manifest. */
    connect: (name: string, body: { publicUrl?: string } = {}): Promise<ChannelConnectAnswer> =>
      this.#call({
        method: "POST",
        path: `/v1/channels/${enc(name)}/connect`,
        body,
        what: `connect ${name}`,
      }),
    /** `GET /v1/channels/{name}/status`: the platform's view (Telegram getWebhookInfo) beside ours. */
    status: (name: string): Promise<ChannelStatus> =>
      this.#call({ method: "GET", path: `/v1/channels/${enc(name)}/status`, what: `channel ${name}` }),
  };

  /**
   * Cron jobs (SPEC §22): the operator token names the agent (`agentId`), an agent token manages its own.
   * Bodies and answers are the `cron` tool's.
   */
  readonly cron = {
    /** `GET /v1/cron/jobs`: the agent's jobs. */
    list: (query: CronAgentQuery = {}): Promise<{ jobs: CronJob[] }> =>
      this.#call({ method: "GET", path: `/v1/cron/jobs${searchOf(query)}`, what: "cron jobs" }),
    /** `POST /v1/cron/jobs`: the job as stored, with its `nextRunAt` (201). */
    add: (job: CronJobInput): Promise<CronJob> =>
      this.#call({ method: "POST", path: "/v1/cron/jobs", body: job, what: "add cron job" }),
    /** `GET /v1/cron/jobs/{jobId}`. */
    get: (jobId: string, query: CronAgentQuery = {}): Promise<CronJob> =>
      this.#call({ method: "GET", path: cronPath(jobId, "", query), what: `cron job ${jobId}` }),
    /** `PATCH /v1/cron/jobs/{jobId}`: a job of the configuration is changed only there (409). */
    update: (jobId: string, patch: CronJobPatch, query: CronAgentQuery = {}): Promise<CronJob> =>
      this.#call({
        method: "PATCH",
        path: cronPath(jobId, "", query),
        body: patch,
        what: `update cron job ${jobId}`,
      }),
    /** `DELETE /v1/cron/jobs/{jobId}`. */
    remove: (jobId: string, query: CronAgentQuery = {}): Promise<{ status: "ok"; removed: true }> =>
      this.#call({ method: "DELETE", path: cronPath(jobId, "", query), what: `remove cron job ${jobId}` }),
    /** `POST /v1/cron/jobs/{jobId}/run`: fires the job now; its run's outcome is in `runs`. */
    run: (jobId: string, query: CronAgentQuery = {}): Promise<{ ok: true; enqueued: true; runId: string }> =>
      this.#call({ method: "POST", path: cronPath(jobId, "/run", query), what: `run cron job ${jobId}` }),
    /** `GET /v1/cron/jobs/{jobId}/runs`: the last runs (50 kept), newest first. */
    runs: (jobId: string, query: CronAgentQuery = {}): Promise<{ runs: CronRun[] }> =>
      this.#call({ method: "GET", path: cronPath(jobId, "/runs", query), what: `runs of cron job ${jobId}` }),
  };

  // The delivery ledger (SPEC §16): the operator token sees every record, an agent token its agent's.

  /** `GET /v1/deliveries`: records newest first; pass `nextCursor` as `cursor` for the next page. */
  deliveries(query: DeliveriesQuery = {}): Promise<DeliveriesPage> {
    return this.#call({ method: "GET", path: `/v1/deliveries${searchOf(query)}`, what: "deliveries" });
  }

  /** `GET /v1/deliveries/{id}`: one record, as its session holds it. */
  delivery(deliveryId: string): Promise<DeliveryRecord> {
    const path = `/v1/deliveries/${enc(deliveryId)}`;
    return this.#call({ method: "GET", path, what: `delivery ${deliveryId}` });
  }

  /** `POST /v1/deliveries/{id}/retry`: a new attempt series (only suspended, failed or dismissed; else 409). */
  retryDelivery(deliveryId: string): Promise<DeliveryRecord> {
    const path = `/v1/deliveries/${enc(deliveryId)}/retry`;
    return this.#call({ method: "POST", path, what: `retry delivery ${deliveryId}` });
  }

  /** `POST /v1/deliveries/{id}/dismiss`: left undelivered on purpose (only pending, failed or suspended). */
  dismissDelivery(deliveryId: string): Promise<DeliveryRecord> {
    const path = `/v1/deliveries/${enc(deliveryId)}/dismiss`;
    return this.#call({ method: "POST", path, what: `dismiss delivery ${deliveryId}` });
  }

  /** `GET /v1/runs/{runId}`. */
  getRun(runId: string): Promise<RunRecord> {
    return this.#call({ method: "GET", path: `/v1/runs/${enc(runId)}`, what: `run ${runId}` });
  }

  /**
   * `POST /v1/runs/{runId}/wait`: waits server-side up to `timeoutMs` (default 30 s); wait again after
   * `timeout`. Name the run's `sessionKey` when you know it (a send's answer has it): the server then
   * finds the run without reading the index, which a turn writes only once it ends (SPEC §24).
   */
  waitRun(runId: string, options: { timeoutMs?: number; sessionKey?: string } = {}): Promise<RunWaitResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_RUN_WAIT_MS;
    const named = options.sessionKey === undefined ? {} : { sessionKey: options.sessionKey };
    return this.#call({
      method: "POST",
      path: `/v1/runs/${enc(runId)}/wait`,
      body: { timeoutMs, ...named },
      serverWaitMs: timeoutMs,
      what: `wait for run ${runId}`,
    });
  }

  /** `POST /v1/runs/{runId}/result`: a webhook agent's deferred answer, sent with that run's token. */
  postRunResult(runId: string, body: RunResultBody): Promise<RunWaitResult> {
    const path = `/v1/runs/${enc(runId)}/result`;
    return this.#call({ method: "POST", path, body, what: `result of run ${runId}` });
  }

  // Live streams (SPEC §14): async iterators that reconnect with Last-Event-ID by themselves.

  /** `GET /v1/sessions/{key}/events`: the session's events from `after` (default: live only), and gaps. */
  events(sessionKey: string, options: SessionStreamOptions = {}): AsyncGenerator<SessionStreamItem> {
    return sessionEvents(this.options, sessionKey, options);
  }

  /** `GET /v1/runs/{runId}/events`: the run's items from `after` (default: all); ends after the last. */
  runEvents(runId: string, options: StreamOptions = {}): AsyncGenerator<RunStreamItem> {
    return runEvents(this.options, runId, options);
  }

  /** chat.send with `stream: true`: the new run's items as they happen, its reply in `delta`s. */
  sendStreamed(
    sessionKey: string,
    text: string,
    options: { idempotencyKey?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<RunStreamItem> {
    return sendStreamed(this.options, sessionKey, text, options);
  }
}
