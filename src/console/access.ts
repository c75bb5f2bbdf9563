import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import type { GrantScope } from "../auth/grant-token";
import type { Identity } from "../auth/identity";
import { AppError } from "../errors";

/** Who may use the console: the operator, or a grant for its one session (SPEC §18). */
export type ConsoleViewer =
  | { kind: "operator" }
  | { kind: "grant"; sessionKey: string; scopes: readonly GrantScope[] };

export const CONSOLE_CREDENTIALS =
  "the console signs in with the operator token or a session grant; agent and run tokens act through the API";

/** The signed-in viewer, or 403 for an agent or run token (both valid, neither the console's). */
export function consoleViewer(c: Context<AppEnv>): ConsoleViewer {
  const identity: Identity = c.get("identity");
  if (identity.kind === "operator") return { kind: "operator" };
  if (identity.kind === "grant")
    return { kind: "grant", sessionKey: identity.sessionKey, scopes: identity.scopes };
  throw new AppError("forbidden", CONSOLE_CREDENTIALS);
}

/** The operator, or 403: every view but one session's belongs to the operator. */
export function requireOperator(c: Context<AppEnv>): void {
  if (consoleViewer(c).kind !== "operator")
    throw new AppError("forbidden", "a grant token shows only its own session");
}

/** May this viewer see `scope` of the session `sessionKey` (canonical)? The operator sees everything. */
export function viewerMay(viewer: ConsoleViewer, sessionKey: string, scope: GrantScope): boolean {
  return viewer.kind === "operator" || (viewer.sessionKey === sessionKey && viewer.scopes.includes(scope));
}
