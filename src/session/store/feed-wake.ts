// Who to tell that the event log grew: the live feed of the object whose storage this is. A registry
// keyed by storage, so the writes (plain functions of `sql`) need no reference to the object.
const wakers = new WeakMap<SqlStorage, { wake: () => void; scheduled: boolean }>();

export function onEventsWritten(sql: SqlStorage, wake: () => void): void {
  wakers.set(sql, { wake, scheduled: false });
}

/**
 * Called inside a write: the feed looks once the current task is done (the write has committed, and
 * the caller of the write got its answer first), once for all the events written meanwhile.
 */
export function eventsWritten(sql: SqlStorage): void {
  const waker = wakers.get(sql);
  if (!waker || waker.scheduled) return;
  waker.scheduled = true;
  setTimeout(() => {
    waker.scheduled = false;
    waker.wake();
  }, 0);
}
