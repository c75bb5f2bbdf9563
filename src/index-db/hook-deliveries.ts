import type { IndexDb } from "./shards";
/** How long a hook's Idempotency-Key is kept (SPEC §22): a repeat within it starts nothing. */
export const HOOK_IDEMPOTENCY_MS = 24 * 60 * 60 * 1000;

/** What a hook POST started: the answer a redelivery with the same key gets again. */
export interface HookStart {
  runId: string;
  sessionKey: string;
}

/**
 * Claims an Idempotency-Key of a hook for `candidate` (migrations/0012): the candidate when it is the
 * first POST with this key in 24 hours (`claimed`), else what the first one started. Two POSTs racing
 * with one key both read the one row that won. Older rows of the hook are dropped on the way.
 */
export async function claimHookKey(
  db: IndexDb,
  hook: string,
  key: string,
  candidate: HookStart,
  now: number,
): Promise<{ claimed: boolean; start: HookStart }> {
  const stale = now - HOOK_IDEMPOTENCY_MS;
  const [, , read] = await db.batch([
    db.prepare("DELETE FROM hook_deliveries WHERE hook = ? AND created_at < ?").bind(hook, stale),
    db
      .prepare(
        `INSERT INTO hook_deliveries (hook, idempotency_key, run_id, session_key, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (hook, idempotency_key) DO NOTHING`,
      )
      .bind(hook, key, candidate.runId, candidate.sessionKey, now),
    db
      .prepare("SELECT run_id, session_key FROM hook_deliveries WHERE hook = ? AND idempotency_key = ?")
      .bind(hook, key),
  ]);
  const row = (read?.results as { run_id: string; session_key: string }[] | undefined)?.[0];
  if (!row) throw new Error(`hook ${hook}: its idempotency row was not written`);
  const start = { runId: row.run_id, sessionKey: row.session_key };
  return { claimed: start.runId === candidate.runId, start };
}

/** Gives a key back (the run it claimed for could not be started), so a redelivery tries again. */
export async function releaseHookKey(db: IndexDb, hook: string, key: string, runId: string): Promise<void> {
  await db
    .prepare("DELETE FROM hook_deliveries WHERE hook = ? AND idempotency_key = ? AND run_id = ?")
    .bind(hook, key, runId)
    .run();
}
