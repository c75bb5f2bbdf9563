import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { keyOptionsOf } from "../../config/key-options";
import { AppError } from "../../errors";
import { findRunSession } from "../../index-db/runs";
import { readShards } from "../../index-db/shards";
import { parseSessionKey } from "../../keys";
import { reportedRunUsage, webhookAnswerSchema } from "../../runtimes/webhook";
import type { Result, RunRecord } from "../../session/api";
import { sessionApi, waitForRunResilient } from "../../session/client";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { waitResult } from "./run-view";
import { canonicalKeyForRequest } from "./session-access";
import { streamReader, streamTarget } from "./stream-access";
import { runCursor, runEvents } from "./streams";

const MAX_WAIT_MS = 10 * 60 * 1000;
export const waitBodySchema = z.strictObject({
  timeoutMs: z.number().int().min(0).max(MAX_WAIT_MS).default(30_000),
  /**
   * The run's session, when the caller knows it (a chat turn's caller does): the run is then asked of
   * that session alone, with no index read, and found even before its run row is indexed (SPEC §24).
   */
  sessionKey: z.string().min(1).max(512).optional(),
});

/**
 * How long after its start a run's row may still be missing from the run index: a run written with its
 * turn's end (src/session/runs/turns.ts) is indexed once it ends or after 250 ms. A lookup by run id
 * that misses looks again over this span before answering 404.
 */
const RUN_INDEX_LOOKS_MS = [250, 500, 1000];

/** What a webhook agent may tell a run's stream while it works (SPEC §14); at least one field. */
export const runProgressSchema = z
  .strictObject({
    delta: z
      .string()
      .min(1)
      .max(64 * 1024)
      .optional(),
    text: z
      .string()
      .max(1024 * 1024)
      .optional(),
    message: z.string().trim().min(1).max(1000).optional(),
  })
  .refine((body) => body.delta !== undefined || body.text !== undefined || body.message !== undefined, {
    message: "one of delta, text or message is required",
  });

function unwrapRun(result: Result<RunRecord>): RunRecord {
  if (result.ok) return result.value;
  throw new AppError("not_found", "run not found");
}

/** The session key of a run the caller may see: operators any, agents their own, run tokens their own run. */
async function runSessionKey(c: Context<AppEnv>, runId: string, named?: string): Promise<string> {
  const sessionKey = named === undefined ? await indexedRunSession(c, runId) : namedSession(c, named);
  const identity = c.get("identity");
  const config = c.get("config");
  const owner = parseSessionKey(sessionKey, keyOptionsOf(config))?.agentId;
  if (identity.kind === "agent" && owner !== identity.agentId) {
    throw new AppError(
      "forbidden",
      `an agent token for "${identity.agentId}" reaches only that agent's runs`,
    );
  }
  if (identity.kind === "run" && identity.claims.runId !== runId) {
    throw new AppError("forbidden", "a run token reaches only its own run");
  }
  // No run route here is open to grants (src/routes/grant-routes.ts lets only the run stream through,
  // which checks its own session); should one be, a grant still reaches only its session's runs.
  if (identity.kind === "grant" && identity.sessionKey !== sessionKey) {
    throw new AppError("forbidden", "a grant token reaches only its own session's runs");
  }
  return sessionKey;
}

/** The session key of a run by its id alone, from the run index (looked up again while it may be on its way). */
async function indexedRunSession(c: Context<AppEnv>, runId: string): Promise<string> {
  const shards = readShards(c.env);
  let sessionKey = await findRunSession(shards, runId);
  for (const pause of RUN_INDEX_LOOKS_MS) {
    if (sessionKey !== undefined) break;
    await scheduler.wait(pause);
    sessionKey = await findRunSession(shards, runId);
  }
  if (!sessionKey) throw new AppError("not_found", "run not found");
  return sessionKey;
}

/**
 * The session a caller named for a run, as its canonical key (`main` for an agent's token, as in a session
 * path); its object answers 404 if the run is not its own.
 */
function namedSession(c: Context<AppEnv>, named: string): string {
  return canonicalKeyForRequest(c.get("identity"), c.get("config"), named, undefined, "sessionKey");
}

/** The session object of a run the caller may see. */
async function runSession(c: Context<AppEnv>, runId: string) {
  return sessionApi(c.env.SESSION, await runSessionKey(c, runId));
}

/**
 * The session of a run whose stream the caller may follow: the same rule as a session stream (SPEC §14),
 * so a parent's run token may follow its child's runs.
 */
async function streamedRunSession(c: Context<AppEnv>, runId: string): Promise<string> {
  const reader = streamReader(c);
  const sessionKey = await indexedRunSession(c, runId);
  const row = await sessionApi(c.env.SESSION, sessionKey).describe();
  if (!row.ok) throw new AppError("not_found", "run not found");
  if (!reader.mayRead(await streamTarget(c, sessionKey, row.value)))
    throw new AppError("forbidden", "this credential may not read this run's session");
  return sessionKey;
}

/** Runs: read one, wait for one (agent.wait), and the deferred result of a webhook agent (SPEC §7, §9). */
export const runRoutes = new Hono<AppEnv>()
  .get("/:runId", async (c) => {
    const session = await runSession(c, c.req.param("runId"));
    return c.json(unwrapRun(await session.getRun(c.req.param("runId"))));
  })
  .get("/:runId/events", async (c) => {
    const runId = c.req.param("runId");
    const { after, field } = runCursor(c);
    return runEvents(c, await streamedRunSession(c, runId), runId, after, field);
  })
  .post("/:runId/progress", async (c) => {
    const runId = c.req.param("runId");
    const identity = c.get("identity");
    if (identity.kind !== "run" || identity.claims.runId !== runId)
      throw new AppError("forbidden", "only the run's own run token may post its progress");
    const body = parseBody(runProgressSchema, await readJsonBody(c.req.raw));
    const session = await runSession(c, runId);
    return c.json(unwrapResult(await session.postRunProgress(runId, body)));
  })
  .post("/:runId/wait", async (c) => {
    const runId = c.req.param("runId");
    const { timeoutMs, sessionKey: named } = parseBody(waitBodySchema, await readJsonBody(c.req.raw));
    const sessionKey = await runSessionKey(c, runId, named);
    return c.json(
      waitResult(unwrapRun(await waitForRunResilient(c.env.SESSION, sessionKey, runId, timeoutMs))),
    );
  })
  .post("/:runId/result", async (c) => {
    const runId = c.req.param("runId");
    const identity = c.get("identity");
    if (identity.kind !== "run")
      throw new AppError("forbidden", "only the run's own run token may post its result");
    const body = parseBody(webhookAnswerSchema, await readJsonBody(c.req.raw));
    const session = await runSession(c, runId);
    const usage = reportedRunUsage(body.usage);
    return c.json(
      waitResult(
        unwrapRun(await session.completeDeferredRun(runId, { text: body.text, ...(usage ? { usage } : {}) })),
      ),
    );
  });
