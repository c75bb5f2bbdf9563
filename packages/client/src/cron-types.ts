// Cron jobs (SPEC §22): the shapes of `/v1/cron/jobs…` and the `cron` tool, written out by hand like the
// rest of the client's types (test/client/types-match.ts keeps them equal to the server's schemas).

/** When a job runs: once (`at`), every `everyMs` (a minute or more), or on a five-field cron expression. */
export type CronSchedule =
  | { kind: "at"; at: string | number; tz?: string }
  | { kind: "every"; everyMs: number }
  | { kind: "cron"; expr: string; tz?: string };

/** What a run does: a turn with `message`, or a system line (`wake: "now"` also starts a run). */
export type CronPayload =
  | { kind: "agentTurn"; message: string }
  | { kind: "systemEvent"; text: string; wake?: "now" | "next" };

/** Where a run's outcome goes, through the delivery ledger. */
export type CronDelivery =
  | { mode: "announce"; channel?: string; to?: string }
  | { mode: "webhook"; url: string }
  | { mode: "none" };

/** `POST /v1/cron/jobs`: what a caller sets (the operator names `agentId`; an agent token has its own). */
export interface CronJobInput {
  jobId?: string;
  name?: string;
  agentId?: string;
  enabled?: boolean;
  schedule: CronSchedule;
  /** `isolated` (default: a fresh session per run), `main`, or `session:<key>`. */
  sessionTarget?: string;
  payload: CronPayload;
  delivery?: CronDelivery;
  /** Default: true for an `at` schedule. */
  deleteAfterRun?: boolean;
}

/** `PATCH /v1/cron/jobs/{jobId}`: any field but the job's id and agent. */
export interface CronJobPatch {
  name?: string;
  enabled?: boolean;
  schedule?: CronSchedule;
  sessionTarget?: string;
  payload?: CronPayload;
  delivery?: CronDelivery;
  deleteAfterRun?: boolean;
}

/** A job as the service answers it. */
export interface CronJob {
  jobId: string;
  name: string;
  agentId: string;
  enabled: boolean;
  schedule: CronSchedule;
  sessionTarget: string;
  payload: CronPayload;
  delivery: CronDelivery;
  deleteAfterRun: boolean;
  /** `config` for a job of the configuration's `cron.jobs` (changed only there), `api` otherwise. */
  source: "config" | "api";
  createdAt: number;
  /** Epoch ms of the next firing, or null when none is due (disabled, or an `at` job that ran). */
  nextRunAt: number | null;
  lastRunAt?: number;
}

/** One run of a job (the last 50 are kept). */
export interface CronRun {
  runId: string;
  sessionKey: string;
  scheduledAt: number;
  startedAt?: number;
  endedAt?: number;
  status: "running" | "ok" | "error" | "timeout" | "killed";
  durationMs?: number;
  deliveryStatus?: string;
  error?: string;
}

/** Names the agent a cron call is about: the operator token must, an agent token may (its own). */
export interface CronAgentQuery {
  agentId?: string;
}
