import { notFound, type Result } from "../api";
import { INSPECT_LIMIT, type SessionInspection } from "../api/api-inspect";
import { liveRecord } from "../record/record";
import { latestEvents, stateVersion } from "../store/event-log";
import { recentRuns, toRunRecord } from "../store/run-store";
import { listWatchers } from "../store/watchers";

/**
 * The session's recent runs, watchers and events (the operator console's view of it), read in one
 * synchronous step so they agree with the stateVersion given. A run's reply is left out: it can be
 * long, and the transcript shows it.
 */
export function inspectSession(sql: SqlStorage): Result<SessionInspection> {
  const record = liveRecord(sql);
  if (!record) return notFound();
  return {
    ok: true,
    value: {
      stateVersion: stateVersion(sql),
      runs: recentRuns(sql, INSPECT_LIMIT).map((row) => {
        const { reply: _reply, ...run } = toRunRecord(row, record.sessionKey);
        return run;
      }),
      watchers: listWatchers(sql),
      events: latestEvents(sql, INSPECT_LIMIT),
    },
  };
}
