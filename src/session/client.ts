import type { QueueMessage } from "../queue/messages";
import type { Result, RunRecord, SessionApi, TurnDelivery, TurnRequest } from "./api";

/** Any namespace of session objects (the Worker's SESSION binding, or the bench's subclass of it). */
type SessionNamespace = Pick<DurableObjectNamespace, "getByName">;

/**
 * The session object for a canonical key, through its public face. workers-types maps RPC results
 * through its Serializable check, which turns loose JSON objects (imported messages keep unknown
 * fields) into `never`; the values are plain JSON, so the interface's types are the true ones.
 */
export function sessionApi(namespace: SessionNamespace, sessionKey: string): SessionApi {
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
  namespace: SessionNamespace,
  sessionKey: string,
  runId: string,
  timeoutMs: number,
): Promise<Result<RunRecord>> {
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
  namespace: SessionNamespace,
  sessionKey: string,
  turn: TurnRequest,
  timeoutMs: number,
): Promise<Result<RunRecord>> {
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

// A Queue message is at most 128 KB: a larger turn travels as a reference to the sender's `sent` row.
const MAX_INLINE_SEND_BYTES = 100 * 1024;

/** The Queue message of a fire-and-forget send: the turn itself, or (too large) where to read it. */
export function queuedSend(delivery: TurnDelivery): QueueMessage {
  const [targetKey = ""] = delivery.targets;
  const inline: QueueMessage = { type: "send", targetKey, turn: delivery.request };
  if (new TextEncoder().encode(JSON.stringify(inline)).byteLength <= MAX_INLINE_SEND_BYTES) return inline;
  return {
    type: "send_ref",
    targetKey,
    runId: delivery.request.runId,
    sourceKey: delivery.viaQueue?.sourceKey ?? "",
  };
}

/**
 * Hands a turn to the first of its targets that still exists (the first, as the session it was made
 * for, when the delivery names it); the receiver deduplicates by runId and
 * dedupeKey, so a redelivery is safe. The key that took it, or undefined when none is left.
 */
export async function deliverTurn(
  namespace: SessionNamespace,
  delivery: TurnDelivery,
): Promise<string | undefined> {
  for (const [index, target] of delivery.targets.entries()) {
    // Only the first target's session is known; the lineage above it goes by key.
    const forSession = index === 0 ? delivery.targetSessionId : undefined;
    const request = forSession ? { ...delivery.request, forSessionId: forSession } : delivery.request;
    const accepted = await sessionApi(namespace, target).enqueueTurn(request);
    if (accepted.ok) return target;
  }
  return undefined;
}

/**
 * A live stream of a session object (SPEC §14), as the object answers it: `path` is `/events` or
 * `/runs/<runId>/events`; the query carries the cursor. The body streams straight from the object.
 */
export function openSessionStream(
  namespace: SessionNamespace,
  sessionKey: string,
  path: string,
  query: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  const url = new URL(`https://session${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const stub = namespace.getByName(sessionKey) as unknown as Fetcher;
  return stub.fetch(url, signal ? { signal } : {});
}
