// Who to tell that the event log grew: the live feed of the object whose storage this is. A registry
// keyed by storage, so the writes (plain functions of `sql`) need no reference to the object.
const wakers = new WeakMap<SqlStorage, () => void>();

export function onEventsWritten(sql: SqlStorage, wake: () => void): void {
  wakers.set(sql, wake);
}

/** Called inside a write: the feed looks once the current task is done, when the write has committed. */
export function eventsWritten(sql: SqlStorage): void {
  const wake = wakers.get(sql);
  if (wake) queueMicrotask(wake);
}
