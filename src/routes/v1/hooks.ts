import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../../app-env";
import { secretsEqual } from "../../auth/constant-time";
import { verifySignatureHeader } from "../../channels/signature";
import { keyOptionsOf } from "../../config/key-options";
import type { HookConfig } from "../../config/schema";
import { readSecret } from "../../config/secrets";
import { announceAddress } from "../../cron/announce-address";
import { AppError, badRequest } from "../../errors";
import { hookSessionKey, hookTurn } from "../../hooks/hook-turn";
import { claimHookKey, type HookStart, releaseHookKey } from "../../index-db/hook-deliveries";
import { readShards, runIdIn } from "../../index-db/shards";
import { displayKey } from "../../keys";
import { sessionApi } from "../../session/client";
import { unwrapResult } from "../store-result";

/** SPEC §22: a hook's JSON body is at most 256 KiB. */
export const MAX_HOOK_BODY_BYTES = 256 * 1024;
const MAX_IDEMPOTENCY_KEY_CHARS = 200;

const limitHookBody = bodyLimit({
  maxSize: MAX_HOOK_BODY_BYTES,
  onError: () => {
    throw new AppError("payload_too_large", `body: over ${MAX_HOOK_BODY_BYTES} bytes`);
  },
});

/**
 * Whether the POST proves the hook's own secret: `Authorization: Bearer <secret>` (compared in constant
 * time), else §8's `X-Switchboard-Signature` over the exact body. An operator's or agent's token is
 * never the hook's secret, so it proves nothing here.
 */
async function provesSecret(c: Context<AppEnv>, secret: string, raw: string): Promise<boolean> {
  const authorization = c.req.header("Authorization");
  if (authorization !== undefined) {
    const token = /^Bearer\s+(.+)$/i.exec(authorization.trim())?.[1] ?? "";
    return secretsEqual(token, secret);
  }
  return verifySignatureHeader(secret, c.req.header("X-Switchboard-Signature"), raw);
}

function parsePayload(raw: string): unknown {
  if (raw.trim() === "") throw badRequest("body: a hook takes a JSON body");
  try {
    return JSON.parse(raw);
  } catch {
    throw badRequest("body: not valid JSON");
  }
}

/** Starts the hook's run in its session (created if need be), in one call and one transaction there. */
async function startRun(
  c: Context<AppEnv>,
  name: string,
  hook: HookConfig,
  payload: unknown,
  start: HookStart,
) {
  const address = await announceAddress(c.env, c.get("config"), hook);
  const turn = hookTurn(name, hook, payload, start.runId, address);
  const init = { sessionKey: start.sessionKey, agentId: hook.agentId };
  unwrapResult(await sessionApi(c.env.SESSION, start.sessionKey).createWithTurn(init, turn));
}

/**
 * Hooks (SPEC §22, OpenClaw's `/hooks/agent`): another system POSTs JSON to `/v1/hooks/{name}`, proved
 * with the hook's own secret, and the hook's agent gets it fenced as untrusted data in the configured
 * session. An `Idempotency-Key` makes a redelivery within 24 hours answer the same 202 and start nothing.
 */
export const hookRoutes = new Hono<AppEnv>().post("/:name", limitHookBody, async (c) => {
  const name = c.req.param("name").toLowerCase();
  const config = c.get("config");
  const hook = config.hooks[name];
  if (!hook)
    throw new AppError("not_found", `unknown hook "${name}": add it under hooks in the configuration`);
  const secret = readSecret(c.env, hook.secretEnv);
  if (!secret) throw new AppError("unavailable", `hook ${name}: secret ${hook.secretEnv} is not set`);
  // The credential covers the exact bytes, so it is checked before anything is parsed or written.
  const raw = await c.req.text();
  if (!(await provesSecret(c, secret, raw))) throw new AppError("unauthorized", "unauthorized");
  const payload = parsePayload(raw);
  const idempotencyKey = c.req.header("Idempotency-Key")?.trim();
  if (
    idempotencyKey !== undefined &&
    (idempotencyKey === "" || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_CHARS)
  )
    throw badRequest(`Idempotency-Key: 1 to ${MAX_IDEMPOTENCY_KEY_CHARS} characters`);
  const keyOptions = keyOptionsOf(config);
  const target = hookSessionKey(hook, keyOptions);
  if (!target.ok) throw new AppError("unavailable", `hook ${name}: ${target.error}`);
  const candidate = { runId: runIdIn(readShards(c.env), target.key), sessionKey: target.key };
  const answer = (start: HookStart) =>
    c.json({ runId: start.runId, sessionKey: displayKey(start.sessionKey, keyOptions) }, 202);
  if (idempotencyKey === undefined) {
    await startRun(c, name, hook, payload, candidate);
    return answer(candidate);
  }
  const claim = await claimHookKey(readShards(c.env)[0], name, idempotencyKey, candidate, Date.now());
  if (!claim.claimed) return answer(claim.start);
  try {
    await startRun(c, name, hook, payload, candidate);
  } catch (error) {
    await releaseHookKey(readShards(c.env)[0], name, idempotencyKey, candidate.runId);
    throw error;
  }
  return answer(candidate);
});
