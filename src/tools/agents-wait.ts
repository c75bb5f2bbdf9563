import { z } from "zod";
import { swarmSettings } from "../config/agents";
import { fittingCount } from "../history/byte-cap";
import { redactJson, redactSecrets } from "../history/redact";
import type { CollectorOutcome, CollectorSnapshot } from "../session/api";
import { flooredNumber } from "./args";
import { collectorOwners, type WaitError } from "./collector-owners";
import { parkedRead } from "./parked-read";
import { defineTool, type ToolContext } from "./types";

export const MAX_AGENTS_WAIT_IDS = 1000;
const DEFAULT_TIMEOUT_SECONDS = 30;
// An answer is one toolResult row of the caller's transcript (bounded at 1 MiB): its results stay well below.
export const MAX_ANSWER_BYTES = 256 * 1024;

/** The ids as waited for: trimmed, blanks dropped, duplicates merged, in input order. */
const normalized = (ids: readonly string[]) => [...new Set(ids.map((id) => id.trim()).filter(Boolean))];

/**
 * A spawner's collector runs, parked in its object until one has ended or `timeoutMs` passes.
 * Undefined when the spawner cannot answer.
 */
function collectorsOf(
  ctx: ToolContext,
  spawner: string,
  runIds: string[],
  timeoutMs: number,
): Promise<CollectorSnapshot | undefined> {
  return parkedRead(timeoutMs, async (remainingMs) => {
    const found = await ctx.session(spawner).waitCollectors(runIds, remainingMs);
    return found.ok ? found.value : undefined;
  });
}

export const agentsWait = defineTool({
  name: "agents_wait",
  description:
    "Wait for collector runs (sessions_spawn collect=true) by run id: returns as soon as any has finished (or at the timeout) with their results; results stay readable for 7 days.",
  schema: z
    .looseObject({
      ids: z
        .array(z.string().max(200))
        // Only a bound on the request; the limit callers read about is the one checked below.
        .max(10 * MAX_AGENTS_WAIT_IDS, `agents_wait supports at most ${MAX_AGENTS_WAIT_IDS} ids.`)
        .describe(`the run ids to wait for (1–${MAX_AGENTS_WAIT_IDS})`)
        // The generated example (OpenAPI, docs) must pass the check below: one id.
        .meta({ examples: [["8d0c6f2e-4b1a-4c3d-9e8f-0a1b2c3d4e5f"]] }),
      timeoutSeconds: flooredNumber()
        .optional()
        .describe("how long to wait, in seconds (default 30, at most tools.swarm.waitTimeoutSecondsMax)"),
    })
    // Input errors, before any storage, in OpenClaw's words.
    .superRefine((params, ctx) => {
      if (params.ids.length > MAX_AGENTS_WAIT_IDS)
        ctx.addIssue({
          code: "custom",
          path: [],
          message: `agents_wait supports at most ${MAX_AGENTS_WAIT_IDS} ids.`,
        });
      else if (normalized(params.ids).length === 0)
        ctx.addIssue({
          code: "custom",
          path: [],
          message: "agents_wait requires at least one non-empty run id.",
        });
    }),
  async handler(ctx, params) {
    const ids = normalized(params.ids);
    const max = swarmSettings(ctx.config, ctx.requester.agentId).waitTimeoutSecondsMax;
    const timeoutMs = Math.min(max, Math.max(0, params.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS)) * 1000;
    const caller = ctx.requester.sessionKey;
    const own = await collectorsOf(ctx, caller, ids, 0);
    const { spawners, errors } = await collectorOwners(ctx, own?.unknown ?? ids);
    const owned = new Map<string, string[]>(spawners);
    const theirs = new Set(own?.unknown ?? ids);
    const mine = ids.filter((id) => !theirs.has(id));
    if (mine.length > 0) owned.set(caller, mine);
    const readAll = (waitMs: number) =>
      Promise.all([...owned].map(([spawner, runIds]) => collectorsOf(ctx, spawner, runIds, waitMs)));
    let snapshots = await readAll(0);
    const done = snapshots.some((found) => (found?.completed.length ?? 0) > 0);
    const pending = snapshots.some((found) => (found?.pending.length ?? 0) > 0);
    if (!done && pending && timeoutMs > 0) {
      // The first spawner to see a result (or the timeout) ends the wait; then all are read again. Only
      // the spawners with runs pending wait: one with none would answer at once.
      const waiting = [...owned]
        .map(([spawner], index) => [spawner, snapshots[index]?.pending ?? []] as const)
        .filter(([, runIds]) => runIds.length > 0);
      await Promise.race(
        waiting.map(([spawner, runIds]) =>
          collectorsOf(ctx, spawner, runIds, timeoutMs).catch(() => undefined),
        ),
      );
      snapshots = await readAll(0);
    }
    // An id its spawner does not keep as a collector (an ordinary sub-agent run) is not one to wait for.
    [...owned].forEach(([, runIds], index) => {
      const found = snapshots[index];
      for (const runId of found ? found.unknown : runIds) errors.push({ runId, error: "not_found" });
    });
    return waitResult(ids, snapshots, errors);
  },
});

/**
 * A result as it leaves the service: the child's text and structured result with secrets masked (kept
 * whole in its requester, where history shows them masked too).
 */
function maskedOutcome<T extends { result: string; structured?: unknown }>(item: T): T {
  return {
    ...item,
    result: redactSecrets(item.result).text,
    ...(item.structured !== undefined ? { structured: redactJson(item.structured) } : {}),
  };
}

/** `completed` in the order results arrived (then input order); `pending` and `errors` in input order. */
function waitResult(ids: string[], snapshots: (CollectorSnapshot | undefined)[], errors: WaitError[]) {
  const position = new Map(ids.map((id, index) => [id, index]));
  const byInput = (a: { runId: string }, b: { runId: string }) =>
    (position.get(a.runId) ?? 0) - (position.get(b.runId) ?? 0);
  const completed = snapshots
    .flatMap((found) => found?.completed ?? [])
    .sort((a, b) => a.endedAt - b.endedAt || a.completedSeq - b.completedSeq || byInput(a, b))
    .map(({ endedAt: _ended, completedSeq: _seq, ...item }: CollectorOutcome) => maskedOutcome(item));
  const waiting = new Set(snapshots.flatMap((found) => found?.pending ?? []));
  const failed = [...new Map(errors.map((error) => [error.runId, error])).values()].sort(byInput);
  const { kept, omitted } = capped(completed);
  return {
    completed: kept,
    pending: ids.filter((id) => waiting.has(id)),
    ...(failed.length > 0 ? { errors: failed } : {}),
    ...(failed.length === ids.length ? { success: false } : {}),
    ...(omitted.length > 0 ? { truncated: true, omitted } : {}),
  };
}

/**
 * The completed items whose JSON array fits MAX_ANSWER_BYTES, in order (the first one always); the
 * rest are named in `omitted` (ours: the answer is a transcript row, bounded; they can be read again by
 * asking for them).
 */
function capped<T extends { runId: string }>(items: T[]): { kept: T[]; omitted: string[] } {
  const fit = Math.max(1, fittingCount(items, MAX_ANSWER_BYTES));
  return { kept: items.slice(0, fit), omitted: items.slice(fit).map((item) => item.runId) };
}
