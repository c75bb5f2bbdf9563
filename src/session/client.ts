import type { TurnRequest } from "./run-store";
import type { SessionObject } from "./session-object";

/** The session object's RPC methods, with their declared result types. */
export type SessionApi = Pick<
  SessionObject,
  | "create"
  | "ensure"
  | "describe"
  | "patch"
  | "remove"
  | "importMessages"
  | "history"
  | "historyFor"
  | "recentMessages"
  | "exportChunk"
  | "enqueueTurn"
  | "enqueueTurnAndWait"
  | "getRun"
  | "waitForRun"
  | "completeDeferredRun"
  | "recordInbound"
  | "deliverCompletion"
  | "kill"
  | "steer"
  | "yieldRun"
  | "attachment"
>;

/**
 * The session object for a canonical key. workers-types maps RPC results through its Serializable
 * check, which turns loose JSON objects (imported messages keep unknown fields) into `never`; the
 * values are plain JSON, so the declared types are the true ones.
 */
export function sessionApi(namespace: DurableObjectNamespace<SessionObject>, sessionKey: string): SessionApi {
  return namespace.getByName(sessionKey) as unknown as SessionApi;
}

// A session object that keeps failing is not asked again in a tight loop.
const WAIT_RETRY_PAUSE_MS = 50;

/**
 * Waits for a run in its session object. The wait lives in that object's memory, so if the instance goes
 * away mid-wait, the wait is taken up again on the next one, through a new stub (a stub that saw its
 * object reset stays broken), until the deadline.
 */
export async function waitForRunResilient(
  namespace: DurableObjectNamespace<SessionObject>,
  sessionKey: string,
  runId: string,
  timeoutMs: number,
): ReturnType<SessionApi["waitForRun"]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await sessionApi(namespace, sessionKey).waitForRun(runId, Math.max(0, deadline - Date.now()));
    } catch (cause) {
      if (Date.now() >= deadline) throw cause;
      await scheduler.wait(Math.min(WAIT_RETRY_PAUSE_MS, Math.max(0, deadline - Date.now())));
    }
  }
}

/**
 * Queues a turn and waits for its run in one call to the session object. If the instance goes away
 * during that call, the turn is queued again (a no-op when it was already written: same runId) and the
 * wait taken up as in `waitForRunResilient`.
 */
export async function sendTurnAndWaitResilient(
  namespace: DurableObjectNamespace<SessionObject>,
  sessionKey: string,
  turn: TurnRequest,
  timeoutMs: number,
): ReturnType<SessionApi["waitForRun"]> {
  const deadline = Date.now() + timeoutMs;
  try {
    return await sessionApi(namespace, sessionKey).enqueueTurnAndWait(turn, timeoutMs);
  } catch (cause) {
    if (Date.now() >= deadline) throw cause;
    const queued = await sessionApi(namespace, sessionKey).enqueueTurn(turn);
    if (!queued.ok) return queued;
    return waitForRunResilient(namespace, sessionKey, queued.value.runId, Math.max(0, deadline - Date.now()));
  }
}
