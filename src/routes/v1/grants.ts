import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { GRANT_SCOPES, hashGrantSecret, mintGrantToken } from "../../auth/grant-token";
import { keyOptionsOf } from "../../config/key-options";
import { AppError } from "../../errors";
import { findGrant, insertGrant, listGrants, revokeGrant } from "../../index-db/grants";
import { readShards } from "../../index-db/shards";
import { parseSessionKey, refineKeyInput } from "../../keys";
import { sessionApi } from "../../session/client";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { canonicalKeyForRequest } from "./session-access";

/** SPEC §18/§19: a grant lives at least a minute and at most seven days. */
export const MIN_GRANT_TTL_SECONDS = 60;
export const MAX_GRANT_TTL_SECONDS = 7 * 24 * 60 * 60;

/** `POST /v1/grants`. Repeated scopes are allowed and count once. */
export const createGrantSchema = z.strictObject({
  sessionKey: z
    .string()
    .trim()
    .min(1)
    .superRefine(refineKeyInput)
    .describe("the one session the token acts on"),
  scopes: z
    .array(z.enum(GRANT_SCOPES))
    .min(1, "scopes must not be empty")
    .max(GRANT_SCOPES.length * 4)
    .describe("read: the session and its history; send: chat.send; events: its streams"),
  ttlSeconds: z
    .number()
    .int()
    .min(MIN_GRANT_TTL_SECONDS)
    .max(MAX_GRANT_TTL_SECONDS)
    .describe("lifetime in seconds, one minute to seven days"),
});

/** Only the operator token and agent tokens hand out or take back grants; run and grant tokens never. */
function issuerAgent(c: Context<AppEnv>, verb = "create or revoke"): { agentId?: string } {
  const identity = c.get("identity");
  if (identity.kind === "operator") return {};
  if (identity.kind === "agent") return { agentId: identity.agentId };
  throw new AppError("forbidden", `only the operator token or an agent token may ${verb} grants`);
}

/** Grants (SPEC §18): a token for one session with some of read/send/events, until it expires or is revoked. */
export const grantRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    // SPEC §23: the operator lists every grant, an agent token its own agent's; never a token or its hash.
    const { agentId } = issuerAgent(c, "list");
    const grants = await listGrants(readShards(c.env)[0], agentId);
    return c.json({ grants: grants.map(({ agentId: _, ...grant }) => grant) });
  })
  .post("/", async (c) => {
    issuerAgent(c);
    const body = parseBody(createGrantSchema, await readJsonBody(c.req.raw));
    const config = c.get("config");
    // Agent tokens reach only their own agent's sessions (403 otherwise), as on the sessions API.
    const sessionKey = canonicalKeyForRequest(
      c.get("identity"),
      config,
      body.sessionKey,
      undefined,
      "sessionKey",
    );
    const agentId = parseSessionKey(sessionKey, keyOptionsOf(config))?.agentId ?? "";
    // A grant is for the session that exists now, never for whatever a key may name later (SPEC §23).
    const { sessionId } = unwrapResult(await sessionApi(c.env.SESSION, sessionKey).describe());
    const scopes = GRANT_SCOPES.filter((scope) => body.scopes.includes(scope));
    const grantId = crypto.randomUUID();
    const { token, secret } = mintGrantToken(grantId);
    const createdAt = Date.now();
    const expiresAt = createdAt + body.ttlSeconds * 1000;
    const grant = { grantId, sessionKey, sessionId, agentId, scopes, createdAt, expiresAt };
    await insertGrant(readShards(c.env)[0], grant, await hashGrantSecret(secret));
    return c.json({ grantId, token, expiresAt, sessionKey, scopes }, 201);
  })
  .delete("/:grantId", async (c) => {
    const { agentId } = issuerAgent(c);
    const grantId = c.req.param("grantId");
    const found = await findGrant(readShards(c.env)[0], grantId);
    if (!found) throw new AppError("not_found", "grant not found");
    if (agentId !== undefined && found.grant.agentId !== agentId)
      throw new AppError("forbidden", `an agent token for "${agentId}" revokes only that agent's grants`);
    await revokeGrant(readShards(c.env)[0], grantId, Date.now());
    return c.json({ grantId, revoked: true });
  });
