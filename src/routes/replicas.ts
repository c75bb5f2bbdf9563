import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { badRequest } from "../errors";
import { BOOKMARK_HEADER, ReplicaSessions } from "../index-db/replicas";
import { type IndexBindings, indexShards, REQUEST_SHARDS } from "../index-db/shards";
import type { SessionApi } from "../session/api";

/**
 * What a session object answers without writing the index. Any other call may have written its shard
 * (the object's outbox writes the primary before it answers), so the shard's next read starts at the
 * primary: a method missing here costs one read at the primary, never a stale one.
 */
const READS_ONLY: ReadonlySet<string> = new Set<keyof SessionApi>([
  "describe",
  "describeForStatus",
  "history",
  "recentMessages",
  "exportChunk",
  "exactPage",
  "messageOffset",
  "getRun",
  "waitForProgress",
  "sentTurn",
  "attachment",
  "delivery",
  "inspect",
  "erasurePlan",
]);

/** The session namespace, telling `called` the key of each object call that may write once it settles. */
function tracked(namespace: Env["SESSION"], called: (sessionKey: string) => void): Env["SESSION"] {
  const stub = (target: object, sessionKey: string): object =>
    new Proxy(target, {
      get(object, method) {
        const value = Reflect.get(object, method);
        if (typeof value !== "function" || typeof method !== "string" || READS_ONLY.has(method)) return value;
        return (...args: unknown[]) => {
          // Reflect.apply: an RPC stub would take `.apply` for a remote method of that name.
          const answer = Reflect.apply(value as (...a: unknown[]) => unknown, object, args);
          return Promise.resolve(answer).finally(() => called(sessionKey));
        };
      },
    });
  return new Proxy(namespace, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "getByName")
        return (name: string, ...rest: unknown[]) =>
          stub(Reflect.apply(value as (...a: unknown[]) => object, target, [name, ...rest]), name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Opens the request's D1 sessions (README "Read replicas"): every index read and write of this request
 * goes through them, started where the caller's `Switchboard-Bookmark` says (or anywhere, the nearest
 * replica), and the answer carries where the caller's next request must start to see what this one saw
 * and wrote. A malformed header is a 400 naming it.
 */
export const replicaSessions = createMiddleware<AppEnv>(async (c, next) => {
  const opened = ReplicaSessions.open(indexShards(c.env), c.req.header(BOOKMARK_HEADER));
  if (!opened.ok) throw badRequest(opened.message);
  const replicas = opened.value;
  const env: Env & IndexBindings = {
    ...c.env,
    [REQUEST_SHARDS]: replicas.shards,
    SESSION: tracked(c.env.SESSION, (sessionKey) => replicas.objectCalled(sessionKey)),
  };
  c.env = env;
  await next();
  const bookmarks = replicas.header();
  if (bookmarks === undefined) return;
  try {
    c.res.headers.set(BOOKMARK_HEADER, bookmarks);
  } catch {
    // An answer passed through from elsewhere has immutable headers: answer a copy.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(BOOKMARK_HEADER, bookmarks);
  }
});
