import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import type { GrantScope } from "../auth/grant-token";
import { AppError } from "../errors";
import { assertGrantScope, GRANT_REACH, grantSessionKey } from "./v1/session-access";

/**
 * The only routes a grant token reaches (SPEC §18), each with the scope it needs. `keyed` routes name
 * the session in their path (its first parameter); the run stream checks the run's session itself.
 */
const grantRoutes: { method: "GET" | "POST"; path: RegExp; scope: GrantScope; keyed: boolean }[] = [
  { method: "GET", path: /^\/v1\/sessions\/([^/]+)$/, scope: "read", keyed: true },
  { method: "GET", path: /^\/v1\/sessions\/([^/]+)\/history$/, scope: "read", keyed: true },
  { method: "POST", path: /^\/v1\/sessions\/([^/]+)\/messages$/, scope: "send", keyed: true },
  { method: "GET", path: /^\/v1\/sessions\/([^/]+)\/events$/, scope: "events", keyed: true },
  { method: "GET", path: /^\/v1\/runs\/[^/]+\/events$/, scope: "events", keyed: false },
];

/** A path segment as the router reads it; a malformed escape matches nothing. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Deny by default: a grant identity passes only to the routes above, with the scope each needs and,
 * where the path names a session, only its own. Every other identity passes untouched.
 */
export const confineGrants = createMiddleware<AppEnv>(async (c, next) => {
  const identity = c.get("identity");
  if (identity.kind === "grant") {
    // The raw path, split before decoding, so an encoded "/" inside a key stays inside its segment.
    const path = new URL(c.req.url).pathname;
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    const route = grantRoutes.find((entry) => entry.method === method && entry.path.test(path));
    if (!route) throw new AppError("forbidden", GRANT_REACH);
    const rawKey = route.keyed ? decodeSegment(route.path.exec(path)?.[1] ?? "") : undefined;
    if (route.keyed && rawKey === undefined) throw new AppError("forbidden", GRANT_REACH);
    assertGrantScope(
      identity,
      rawKey === undefined ? identity.sessionKey : grantSessionKey(identity, c.get("config"), rawKey),
      route.scope,
    );
  }
  await next();
});
