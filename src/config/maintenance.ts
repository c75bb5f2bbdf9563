import { z } from "zod";
import type { SessionKind } from "../keys/types";

/**
 * SPEC §23 retention (`session.maintenance`, OpenClaw's key): the defaults, overridden per agent
 * (`agents.list[].maintenance`), and in either per session kind (`byKind`). Durations stay written as
 * the operator wrote them ("30d") in the parsed config; `parseDuration` is the one reader of them.
 */

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^([1-9][0-9]{0,8})(s|m|h|d)$/;

/** "45s", "90m", "12h", "30d" in ms; undefined for anything else (no zero, no spaces, no fractions). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

const duration = z
  .string()
  .refine(
    (text) => parseDuration(text) !== undefined,
    'a duration is a whole number and a unit: "45s", "90m", "12h", "30d"',
  );

const sessionKinds = [
  "main",
  "group",
  "cron",
  "hook",
  "node",
  "other",
] as const satisfies readonly SessionKind[];

const policyFields = {
  /** Idle sessions (no activity for this long) are deleted. */
  pruneAfter: duration.optional(),
  /** Idle sessions are archived. */
  archiveAfter: duration.optional(),
  /** Older messages beyond this many leave the transcript and the search index once compaction summarized them. */
  maxMessages: z.number().int().min(1).max(1_000_000).optional(),
  /** Search rows older than this leave the index. */
  searchRetention: duration.optional(),
  /** Ended runs, their events and run index rows older than this are pruned. */
  runRetention: duration.optional(),
  /** `warn`: the maintenance pass reports what it would do and changes nothing. */
  mode: z.enum(["enforce", "warn"]).optional(),
};

const kindPolicy = z.strictObject(policyFields);

/** The `session.maintenance` and `agents.list[].maintenance` object. */
export const maintenanceSchema = z.strictObject({
  ...policyFields,
  byKind: z.partialRecord(z.enum(sessionKinds), kindPolicy).optional(),
});

export type MaintenanceConfig = z.infer<typeof maintenanceSchema>;

/** One session kind's effective policy, durations in ms; absent = that bound is off. */
export interface MaintenancePolicy {
  pruneAfterMs?: number;
  archiveAfterMs?: number;
  maxMessages?: number;
  searchRetentionMs?: number;
  runRetentionMs: number;
  mode: "enforce" | "warn";
}

/** OpenClaw's defaults: idle sessions pruned after 30 days; runs kept 30 days (SPEC §23). */
export const MAINTENANCE_DEFAULTS = { pruneAfter: "30d", runRetention: "30d", mode: "enforce" } as const;
const DEFAULT_RUN_RETENTION_MS = 30 * UNIT_MS.d;

/**
 * The policy of one agent's sessions of one kind: built-in defaults < `session.maintenance` <
 * its `byKind[kind]` < the agent's `maintenance` < the agent's `byKind[kind]`.
 */
export function resolveMaintenance(
  global: MaintenanceConfig | undefined,
  agent: MaintenanceConfig | undefined,
  kind: SessionKind,
): MaintenancePolicy {
  const layers = [MAINTENANCE_DEFAULTS, global, global?.byKind?.[kind], agent, agent?.byKind?.[kind]];
  const merged: Omit<MaintenanceConfig, "byKind"> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer))
      if (key !== "byKind" && value !== undefined) Object.assign(merged, { [key]: value });
  }
  const ms = (text: string | undefined) => (text === undefined ? undefined : parseDuration(text));
  return {
    pruneAfterMs: ms(merged.pruneAfter),
    archiveAfterMs: ms(merged.archiveAfter),
    maxMessages: merged.maxMessages,
    searchRetentionMs: ms(merged.searchRetention),
    runRetentionMs: ms(merged.runRetention) ?? DEFAULT_RUN_RETENTION_MS,
    mode: merged.mode ?? "enforce",
  };
}
