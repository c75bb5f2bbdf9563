import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { authenticate, bearerToken, type Identity } from "../auth/identity";
import type { RunTokenClaims } from "../auth/run-token";
import { loadConfig } from "../config/load";
import { AppError } from "../errors";
import { sessionApi } from "../session/client";

/** Loads the validated configuration; an invalid document fails every request (SPEC §2). */
export const requireConfig = createMiddleware<AppEnv>(async (c, next) => {
  const loaded = loadConfig(c.env);
  if (!loaded.ok) throw new AppError("config_invalid", loaded.error);
  c.set("config", loaded.config);
  await next();
});

/** A run token outlives its run by this much: the run's last calls (its result, a late tool call) still land. */
export const RUN_TOKEN_GRACE_MS = 60_000;

/**
 * A run token acts only while its run lives (SPEC §3: it expires with the run, plus a grace period):
 * its signature and `exp` are not enough once the run ended, was killed, or its session was deleted.
 */
async function runIsLive(env: Env, claims: RunTokenClaims): Promise<boolean> {
  const run = await sessionApi(env.SESSION, claims.sessionKey).getRun(claims.runId);
  if (!run.ok) return false;
  const { endedAt } = run.value;
  return endedAt === undefined || Date.now() <= endedAt + RUN_TOKEN_GRACE_MS;
}

/**
 * The identity a bearer token proves now, or undefined: its checks, and a run token's run still live.
 * Asked once per request, and again while a stream it opened stays open (src/sse/guard.ts).
 */
export async function identify(env: Env, token: string | undefined): Promise<Identity | undefined> {
  const identity = await authenticate(env, token);
  if (identity?.kind === "run" && !(await runIsLive(env, identity.claims))) return undefined;
  return identity;
}

/** Requires a valid bearer token; a missing or bad one is 401 with no detail (SPEC §3). */
export const requireIdentity = createMiddleware<AppEnv>(async (c, next) => {
  const identity = await identify(c.env, bearerToken(c.req.header("Authorization")));
  if (!identity) throw new AppError("unauthorized", "unauthorized");
  c.set("identity", identity);
  await next();
});

/** Reads a JSON body; malformed JSON is a 400 that says so. */
export async function readJsonBody(request: Request): Promise<unknown> {
  return parseJsonText(await request.text());
}

/** Parses JSON text already read (signed bodies are verified on their exact bytes first). */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "request body is not valid JSON");
  }
}
