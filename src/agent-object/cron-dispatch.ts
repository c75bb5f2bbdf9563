import type { SwitchboardConfig } from "../config/schema";
import { announceAddress } from "../cron/announce-address";
import type { JobDefinition } from "../cron/job-schema";
import { cronSlotKey } from "../cron/run-report";
import type { SessionApi, TurnRequest } from "../session/api";
import { sessionApi } from "../session/client";
import type { Provenance } from "../transcript/message";

/**
 * How a slot's dispatch went: its target accepted the run (or took the system line, which needs no
 * run: `ended`), or failed for good (the run ends `error`), or could not be asked (`retry`).
 */
export type DispatchOutcome =
  | { kind: "accepted" }
  | { kind: "ended" }
  | { kind: "failed"; error: string }
  | { kind: "retry"; error: string };

/** One slot to hand to its target: the job as it is now, the run and its target session. */
export interface Slot {
  job: JobDefinition;
  runId: string;
  scheduledAt: number;
  sessionKey: string;
}

/** The turn of a slot: deduplicated in the target by its runId and `cron:<jobId>:<scheduledAt>`. */
async function slotTurn(env: Env, config: SwitchboardConfig, slot: Slot): Promise<TurnRequest> {
  const { job } = slot;
  const address = await announceAddress(env, config, job);
  const provenance: Provenance = {
    kind: "system",
    sourceTool: "cron",
    job: { id: job.jobId, name: job.name, ...(address.deliverTo ? { deliverTo: address.deliverTo } : {}) },
  };
  return {
    runId: slot.runId,
    dedupeKey: cronSlotKey(job.jobId, slot.scheduledAt),
    message: {
      id: `cron:${slot.runId}`,
      text: job.payload.kind === "agentTurn" ? job.payload.message : job.payload.text,
      provenance,
    },
    ...(address.replyTo ? { replyTo: address.replyTo } : {}),
    ...(address.ownChannel ? { replyToOwnChannel: true } : {}),
    // The target owes the signed POST of the run's outcome through its ledger when the run ends
    // (src/session/writes/webhooks.ts); the URL was checked against allowedOrigins when the job was.
    ...(job.delivery.mode === "webhook" ? { webhook: { url: job.delivery.url, jobId: job.jobId } } : {}),
  };
}

const errorOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

/** Makes sure the target exists: created for an isolated run or the main session, found for a named one. */
async function ensureTarget(target: SessionApi, slot: Slot): Promise<string | undefined> {
  if (slot.job.sessionTarget.startsWith("session:")) {
    const found = await target.describe();
    return found.ok ? undefined : `target session ${slot.sessionKey} not found`;
  }
  const ensured = await target.ensure({ sessionKey: slot.sessionKey, agentId: slot.job.agentId });
  return ensured.ok ? undefined : `target session ${slot.sessionKey}: ${ensured.message}`;
}

/**
 * Hands a slot to its target session. Safe to repeat after any failure or eviction: the target takes a
 * runId (and the slot's dedupe key, and the system line's message id) once.
 */
export async function dispatchSlot(
  env: Env,
  config: SwitchboardConfig,
  slot: Slot,
): Promise<DispatchOutcome> {
  try {
    const target = sessionApi(env.SESSION, slot.sessionKey);
    const { payload } = slot.job;
    if (payload.kind === "systemEvent" && payload.wake !== "now") {
      const missing = await ensureTarget(target, slot);
      if (missing) return { kind: "failed", error: missing };
      const turn = await slotTurn(env, config, slot);
      const line = {
        id: turn.message.id ?? `cron:${slot.runId}`,
        role: "system" as const,
        content: payload.text,
        provenance: turn.message.provenance,
        timestamp: Date.now(),
      };
      const imported = await target.importMessages([line]);
      return imported.ok ? { kind: "ended" } : { kind: "failed", error: imported.message };
    }
    const turn = await slotTurn(env, config, slot);
    if (slot.job.sessionTarget === "isolated") {
      const created = await target.createWithTurn(
        { sessionKey: slot.sessionKey, agentId: slot.job.agentId },
        turn,
      );
      return created.ok ? { kind: "accepted" } : { kind: "failed", error: created.message };
    }
    const missing = await ensureTarget(target, slot);
    if (missing) return { kind: "failed", error: missing };
    const accepted = await target.enqueueTurn(turn);
    return accepted.ok ? { kind: "accepted" } : { kind: "failed", error: accepted.message };
  } catch (cause) {
    return { kind: "retry", error: errorOf(cause) };
  }
}
