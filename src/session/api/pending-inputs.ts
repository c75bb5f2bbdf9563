import { z } from "zod";

// A session's pending inputs (OpenClaw's `sessions_history` `pendingInputs`): messages it has accepted
// whose runs have not started yet. Each message is already in the transcript (a turn appends its message
// and queues its run in one transaction), so an item names it and says why it waits.

/** Items listed at most; `total` counts them all. */
export const MAX_PENDING_ITEMS = 20;

export const pendingInputSchema = z.object({
  runId: z.string(),
  /** The message the run answers, in the transcript (and on the page when within it). */
  messageId: z.string().optional(),
  /**
   * `queued`: waits for the runs before it; `held`: a collector waiting for a slot of its group;
   * `retrying`: started once, waits to be tried again.
   */
  state: z.enum(["queued", "held", "retrying"]),
  queuedAt: z.number().describe("ms since the epoch"),
});
export type PendingInput = z.infer<typeof pendingInputSchema>;

export const pendingInputsSchema = z
  .object({ items: z.array(pendingInputSchema), total: z.number() })
  .describe(`accepted messages whose runs have not started, oldest first (at most ${MAX_PENDING_ITEMS})`);
export type PendingInputs = z.infer<typeof pendingInputsSchema>;

/** Nothing pending: a session never written, or one whose runs have all started. */
export const NO_PENDING_INPUTS: PendingInputs = { items: [], total: 0 };

/** The session's pending inputs, in the order they will run (served by the run_status index). */
export function readPendingInputs(sql: SqlStorage): PendingInputs {
  const rows = sql
    .exec<{
      run_id: string;
      trigger_message_id: string | null;
      held: number | null;
      started_at: number | null;
      created_at: number;
    }>(
      `SELECT run_id, trigger_message_id, held, started_at, created_at FROM run WHERE status = 'queued'
       ORDER BY seq LIMIT ?`,
      MAX_PENDING_ITEMS + 1,
    )
    .toArray();
  const items = rows.slice(0, MAX_PENDING_ITEMS).map(
    (row): PendingInput => ({
      runId: row.run_id,
      ...(row.trigger_message_id ? { messageId: row.trigger_message_id } : {}),
      state: row.held ? "held" : row.started_at !== null ? "retrying" : "queued",
      queuedAt: row.created_at,
    }),
  );
  const total =
    rows.length > MAX_PENDING_ITEMS
      ? sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM run WHERE status = 'queued'").one().n
      : items.length;
  return { items, total };
}
