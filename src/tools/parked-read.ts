// A session object that keeps failing is not asked again in a tight loop.
const RETRY_PAUSE_MS = 50;

/**
 * A read parked in a session object until `timeoutMs` passes (0: at once). The wait lives in that
 * object's memory: if its instance goes away (the call throws), it is taken up again, through a fresh
 * stub, with the time that is left, until the deadline; past it, the failure is the caller's.
 */
export async function parkedRead<T>(
  timeoutMs: number,
  read: (remainingMs: number) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await read(Math.max(0, deadline - Date.now()));
    } catch (cause) {
      if (Date.now() >= deadline) throw cause;
      await scheduler.wait(Math.min(RETRY_PAUSE_MS, Math.max(0, deadline - Date.now())));
    }
  }
}
