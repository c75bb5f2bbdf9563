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
  | "recentMessages"
  | "exportChunk"
  | "enqueueTurn"
  | "getRun"
  | "waitForRun"
  | "completeDeferredRun"
  | "recordInbound"
>;

/**
 * The session object for a canonical key. workers-types maps RPC results through its Serializable
 * check, which turns loose JSON objects (imported messages keep unknown fields) into `never`; the
 * values are plain JSON, so the declared types are the true ones.
 */
export function sessionApi(namespace: DurableObjectNamespace<SessionObject>, sessionKey: string): SessionApi {
  return namespace.getByName(sessionKey) as unknown as SessionApi;
}
