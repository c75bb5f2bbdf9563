import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { displayKey, parseSessionKey } from "../../keys";
import type { TranscriptMessage } from "../../transcript/message";
import { liveRecord, type SessionRecord } from "../record/record";
import type { OutboxPayload } from "../store/outbox-store";
import { appendMessages } from "../transcript/transcript";
import { writeTurn } from "../writes/writes";

/**
 * Watch, on the watcher's side (SPEC §13): a notice from a watched session becomes a hidden `system`
 * message here, and a session that is not a sub-agent also gets one wake turn per coalescing window
 * (table `watch_wake`, due through `due_work`, so it survives eviction).
 */

/** Notices arriving within this window of the first one share one wake turn. */
export const WATCH_WAKE_WINDOW_MS = 20_000;

/** The wake turn's trigger message (a `user` message of `system` provenance: it notifies no watcher). */
export const WATCH_WAKE_TEXT =
  "Sessions you watch changed (see the session-state notices above). Reconcile before acting.";

export type WatchNotice = OutboxPayload<"watch_notice">;

/** The notice's exact text; `target` as the watcher names it (its display key). */
export function watchNoticeText(target: string, n: number): string {
  return `Session "${target}" changed (other actor). Reconcile before acting: session_status sessionKey "${target}" changesSince ${n}.`;
}

/**
 * Appends the notice (once: its id is per target and n) and, for a watcher that is not a sub-agent,
 * opens a wake window unless one is open. An archived watcher takes no notice.
 */
export function writeWatchNotice(
  sql: SqlStorage,
  record: SessionRecord,
  config: SwitchboardConfig,
  notice: WatchNotice,
  now: number,
): "appended" | "duplicate" | "archived" {
  if (record.archivedAt !== undefined) return "archived";
  const keyOptions = keyOptionsOf(config);
  const message: TranscriptMessage = {
    id: `watch:${notice.targetKey}:${notice.n}`,
    role: "system",
    content: watchNoticeText(displayKey(notice.targetKey, keyOptions), notice.n),
    hidden: true,
    provenance: { kind: "system" },
    timestamp: now,
  };
  const appended = appendMessages(sql, [message], record.firstUserText !== undefined);
  if (appended.imported === 0) return "duplicate";
  // A sub-agent reads the notice on its next turn; anyone else is woken once the window closes.
  if (!parseSessionKey(record.sessionKey, keyOptions)?.isSubagent)
    sql.exec(
      "INSERT INTO watch_wake (id, due_at) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
      now + WATCH_WAKE_WINDOW_MS,
    );
  return "appended";
}

/** At the alarm: once the window closed, the wake turn is queued (none for a session archived since). */
export function wakeIfDue(sql: SqlStorage, config: SwitchboardConfig, now: number): void {
  const due = sql.exec<{ due_at: number }>("SELECT due_at FROM watch_wake").toArray()[0];
  if (!due || due.due_at > now) return;
  sql.exec("DELETE FROM watch_wake");
  const record = liveRecord(sql);
  if (!record || record.archivedAt !== undefined) return;
  const runId = crypto.randomUUID();
  writeTurn(
    sql,
    record,
    config,
    { runId, message: { id: `watch-wake:${runId}`, text: WATCH_WAKE_TEXT, provenance: { kind: "system" } } },
    now,
  );
}
