import type { SessionEvent, StateChanges, WatcherInfo } from "../api/api-events";
import { addDelivery } from "./delivery-store";

/**
 * Watch, on the watched (target) side (SPEC §13): one cursor per watcher session key (table `watcher`),
 * and the coalesced notice each one is owed, handed to the outbox (`watch_notice`). Cursor semantics
 * after OpenClaw's: `last_seen` is what the watcher has read (a notice says `changesSince <last_seen>`),
 * `notified` the notify-eligible seq that raised the notice owed now (NULL: none pending), `material`
 * the newest such seq. While a notice is pending, further events only move `material`.
 */

type CursorRow = {
  watcher_key: string;
  last_seen: number;
  notified: number | null;
  material: number;
  created_at: number;
};

/** A `message` by a person, or by a session other than the watcher: only these notify (SPEC §13). */
function notifies(event: SessionEvent, watcherKey: string): boolean {
  if (event.kind !== "message") return false;
  return event.actor.type === "human" || (event.actor.type === "agent" && event.actor.id !== watcherKey);
}

/**
 * Owes the watcher one notice, with its delivery record (SPEC §16 `notice`); its dedupe key makes a
 * repeat of the same notice the same entry.
 */
function raiseNotice(sql: SqlStorage, targetKey: string, cursor: CursorRow, n: number): void {
  const watcherKey = cursor.watcher_key;
  // `since`: the watcher registered then; a session of its key created later is not it (SPEC §23).
  const payload = { watcherKey, targetKey, n, since: cursor.created_at };
  addDelivery(
    sql,
    "notice",
    { target: watcherKey },
    { kind: "watch_notice", key: `watch:${watcherKey}:${n}`, payload },
  );
}

/**
 * Registers (or keeps) a watcher, its cursor at the current version so earlier history never notifies.
 * A watcher with a notice pending keeps it as it is (re-registering keeps pending state).
 */
export function registerWatcher(sql: SqlStorage, watcherKey: string, version: number, now: number): void {
  sql.exec(
    `INSERT INTO watcher (watcher_key, last_seen, notified, material, created_at) VALUES (?1, ?2, NULL, ?2, ?3)
     ON CONFLICT (watcher_key) DO UPDATE SET last_seen = MAX(last_seen, ?2), material = MAX(material, ?2)
       WHERE notified IS NULL`,
    watcherKey,
    version,
    now,
  );
}

/** Every watcher of this session, the longest-standing first (what the console shows). */
export function listWatchers(sql: SqlStorage): WatcherInfo[] {
  return sql
    .exec<CursorRow & { created_at: number }>("SELECT * FROM watcher ORDER BY created_at, watcher_key")
    .toArray()
    .map((row) => ({
      watcherKey: row.watcher_key,
      lastSeen: row.last_seen,
      since: row.created_at,
      noticePending: row.notified !== null,
    }));
}

/**
 * Called by the event log for what it just wrote (same transaction). Nothing but `message` events by a
 * person or a session is looked at, and only then are the cursors read: a session nobody watches pays
 * one query on an empty table at most.
 */
export function noteWatchedEvents(sql: SqlStorage, targetKey: string, events: readonly SessionEvent[]): void {
  const candidates = events.filter((event) => event.kind === "message" && event.actor.type !== "system");
  if (candidates.length === 0) return;
  const cursors = sql.exec<CursorRow>("SELECT * FROM watcher").toArray();
  for (const cursor of cursors) {
    const eligible = candidates.filter((event) => notifies(event, cursor.watcher_key));
    const first = eligible[0];
    const last = eligible.at(-1);
    if (!first || !last) continue;
    sql.exec(
      "UPDATE watcher SET material = ?, notified = COALESCE(notified, ?) WHERE watcher_key = ?",
      last.seq,
      first.seq,
      cursor.watcher_key,
    );
    if (cursor.notified === null) raiseNotice(sql, targetKey, cursor, cursor.last_seen);
  }
}

/**
 * The watcher read the changes after `since` (session_status `changesSince`). With `since` at or past
 * its `last_seen` (the notice's n), that acknowledges everything the answer showed: the cursor moves
 * there and the pending notice is settled. Only an answer cut at its limit can leave a notify-eligible
 * event unread; then exactly one fresh notice is owed, from where the answer stopped (true).
 */
export function acknowledgeWatch(
  sql: SqlStorage,
  targetKey: string,
  watcherKey: string,
  since: number,
  changes: StateChanges,
): boolean {
  const cursor = sql.exec<CursorRow>("SELECT * FROM watcher WHERE watcher_key = ?", watcherKey).toArray()[0];
  if (!cursor || since < cursor.last_seen) return false;
  const shown = changes.truncated ? (changes.events.at(-1)?.seq ?? since) : changes.stateVersion;
  const lastSeen = Math.max(cursor.last_seen, shown);
  const unread = cursor.material > lastSeen;
  sql.exec(
    "UPDATE watcher SET last_seen = ?, notified = ? WHERE watcher_key = ?",
    lastSeen,
    unread ? cursor.material : null,
    watcherKey,
  );
  if (unread) raiseNotice(sql, targetKey, cursor, lastSeen);
  return unread;
}

/**
 * The watcher did not take its notice: a deleted one stops watching (its cursor goes); an archived one
 * keeps its cursor with no notice pending, so the next change after it is back raises one again.
 */
export function watcherAway(sql: SqlStorage, watcherKey: string, why: "deleted" | "archived"): void {
  if (why === "deleted") sql.exec("DELETE FROM watcher WHERE watcher_key = ?", watcherKey);
  else sql.exec("UPDATE watcher SET notified = NULL WHERE watcher_key = ?", watcherKey);
}

/**
 * A deleted (or re-created) session has no watchers and owes none of them a notice any more; as a
 * watcher, it has no wake turn to come.
 */
export function clearWatchers(sql: SqlStorage): void {
  sql.exec("DELETE FROM watcher");
  sql.exec("DELETE FROM watching");
  sql.exec("DELETE FROM watch_wake");
  sql.exec("DELETE FROM outbox WHERE kind = 'watch_notice'");
}

/** Erasure: these (erased) sessions stop watching this one; the notices owed them go. Answers rows removed. */
export function removeWatchers(sql: SqlStorage, watcherKeys: readonly string[]): number {
  const watchers = sql.exec(
    "DELETE FROM watcher WHERE watcher_key IN (SELECT value FROM json_each(?))",
    JSON.stringify(watcherKeys),
  ).rowsWritten;
  return watchers + dropNotices(sql, watcherKeys);
}

/** The notices owed these watchers go from the outbox. Answers how many. */
function dropNotices(sql: SqlStorage, watcherKeys: readonly string[]): number {
  return sql.exec(
    `DELETE FROM outbox WHERE kind = 'watch_notice'
       AND json_extract(payload, '$.watcherKey') IN (SELECT value FROM json_each(?))`,
    JSON.stringify(watcherKeys),
  ).rowsWritten;
}

/** The watcher's side: it now watches `targetKey` (one row per session it ever watched, until deleted). */
export function noteWatching(sql: SqlStorage, targetKey: string, now: number): void {
  sql.exec(
    "INSERT INTO watching (target_key, created_at) VALUES (?, ?) ON CONFLICT (target_key) DO NOTHING",
    targetKey,
    now,
  );
}

/** The sessions this one watches, by its own record of them. */
export function watchedTargets(sql: SqlStorage): string[] {
  return sql
    .exec<{ target_key: string }>("SELECT target_key FROM watching")
    .toArray()
    .map((row) => row.target_key);
}

/**
 * A watcher deleted: its cursor here (registered before its deletion) and the notices owed it go.
 * Answers whether a cursor was removed.
 */
export function dropWatcher(sql: SqlStorage, watcherKey: string, before: number): boolean {
  const removed = sql.exec(
    "DELETE FROM watcher WHERE watcher_key = ? AND created_at <= ?",
    watcherKey,
    before,
  ).rowsWritten;
  if (removed > 0) dropNotices(sql, [watcherKey]);
  return removed > 0;
}
