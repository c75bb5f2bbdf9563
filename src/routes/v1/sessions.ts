import { type Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../../app-env";
import { configuredModels } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import { badRequest } from "../../errors";
import { childKeysOf, visibleChildRows } from "../../index-db/children";
import { readShards, runIdIn } from "../../index-db/shards";
import { displayKey } from "../../keys";
import { grantRow } from "../../policy/grant-view";
import { sessionApi } from "../../session/client";
import { assertAllowedWebhook } from "../../webhooks/allowed-origin";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { asksErasure, eraseSessionRoute } from "./erasure";
import { agentForRequest, assertGrantScope, canonicalKeyForRequest, restScope } from "./session-access";
import {
  type chatAcceptedSchema,
  chatSendSchema,
  compactSessionSchema,
  createSessionSchema,
  importTranscriptSchema,
  patchSessionSchema,
} from "./session-schemas";
import { runEvents, sessionEvents } from "./streams";

const EXPORT_CHUNK_ROWS = 500;

/** The canonical key a path names, after the caller's access to it is checked. */
function pathKey(c: Context<AppEnv>): string {
  return canonicalKeyForRequest(c.get("identity"), c.get("config"), c.req.param("key") ?? "");
}

/** The session object a path names, after the caller's access to it is checked. */
function pathSession(c: Context<AppEnv>) {
  return sessionApi(c.env.SESSION, pathKey(c));
}

/** Operator and integration REST for sessions (SPEC §9). */
export const sessionRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    const body = parseBody(createSessionSchema, await readJsonBody(c.req.raw));
    const identity = c.get("identity");
    const config = c.get("config");
    const agentId = body.key && !body.agentId ? undefined : agentForRequest(identity, config, body.agentId);
    // Without a key, the API creates a fresh session of kind "other" (README "Sessions").
    const rawKey = body.key ?? `agent:${agentId}:api:${crypto.randomUUID()}`;
    const sessionKey = canonicalKeyForRequest(identity, config, rawKey, agentId);
    const owner = agentId ?? sessionKey.split(":")[1] ?? "";
    const created = await sessionApi(c.env.SESSION, sessionKey).create({
      sessionKey,
      agentId: owner,
      ...(body.label ? { label: body.label } : {}),
      ...(body.displayName ? { displayName: body.displayName } : {}),
      ...(body.subject ? { subject: body.subject } : {}),
      ...(body.channel ? { channel: body.channel } : {}),
      ...(body.chatType ? { chatType: body.chatType } : {}),
      ...(body.deliveryContext ? { deliveryContext: body.deliveryContext } : {}),
    });
    return c.json(unwrapResult(created), 201);
  })
  .get("/:key", async (c) => {
    const sessionKey = pathKey(c);
    const [described, childRows] = await Promise.all([
      sessionApi(c.env.SESSION, sessionKey).describe(),
      visibleChildRows(readShards(c.env), [sessionKey], restScope(c.get("identity"))),
    ]);
    const row = unwrapResult(described);
    // Only this session's children, not those of an earlier session of its key (SPEC §23).
    const children = childKeysOf(childRows, new Map([[sessionKey, row.sessionId]]));
    // A grant sees its one session: no parent, no children, no other session's key (SPEC §18).
    if (c.get("identity").kind === "grant") return c.json(grantRow(row, sessionKey));
    const childKeys = children.get(sessionKey);
    return c.json(
      childKeys
        ? { ...row, childSessions: childKeys.map((key) => displayKey(key, keyOptionsOf(c.get("config")))) }
        : row,
    );
  })
  .patch("/:key", async (c) => {
    const session = pathSession(c);
    const body = parseBody(patchSessionSchema, await readJsonBody(c.req.raw));
    if (body.model && !configuredModels(c.get("config")).has(body.model)) {
      throw badRequest(`model: "${body.model}" is not a configured model`);
    }
    // As for the sessions tool (SPEC §17): a lifecycle change names the generation it means.
    if (body.archived !== undefined && !body.expectedSessionId)
      throw badRequest("expectedSessionId: required to change archived (the sessionId you read)");
    const { model, expectedSessionId, ...rest } = body;
    const changes = { ...rest, ...(model !== undefined ? { modelOverride: model } : {}) };
    return c.json(unwrapResult(await session.patch(changes, { expectedSessionId })));
  })
  .delete("/:key", async (c) => {
    const erase = asksErasure(c);
    const sessionKey = pathKey(c);
    if (erase) return eraseSessionRoute(c, sessionKey);
    return c.json(unwrapResult(await sessionApi(c.env.SESSION, sessionKey).remove()));
  })
  .post("/:key/compact", async (c) => {
    const session = pathSession(c);
    parseBody(compactSessionSchema, await readJsonBody(c.req.raw));
    return c.json(unwrapResult(await session.compact()));
  })
  .post("/:key/transcript", async (c) => {
    const session = pathSession(c);
    const body = parseBody(importTranscriptSchema, await readJsonBody(c.req.raw));
    return c.json(unwrapResult(await session.importMessages(body.messages)));
  })
  .post("/:key/messages", async (c) => {
    const sessionKey = pathKey(c);
    const session = sessionApi(c.env.SESSION, sessionKey);
    const body = parseBody(chatSendSchema, await readJsonBody(c.req.raw));
    // Watching the reply stream is the `events` scope's, not `send`'s: checked before anything is written.
    if (body.stream) assertGrantScope(c.get("identity"), sessionKey, "events");
    if (body.webhook !== undefined) assertAllowedWebhook(body.webhook, c.get("config"), "webhook");
    const queued = await session.enqueueTurn({
      // Routed to the session's index shard, so `/v1/runs/{runId}…` reads that shard alone.
      runId: runIdIn(readShards(c.env), sessionKey),
      ...(body.idempotencyKey ? { dedupeKey: `chat:${body.idempotencyKey}` } : {}),
      message: { text: body.text, provenance: { kind: "external_user" } },
      ...(body.webhook !== undefined ? { webhook: { url: body.webhook } } : {}),
    });
    const { runId } = unwrapResult(queued);
    // A chat bot's typing view in one request: the run's stream, from its start to its end (SPEC §14).
    if (body.stream) return runEvents(c, sessionKey, runId);
    return c.json({ runId, status: "accepted" } satisfies z.output<typeof chatAcceptedSchema>, 202);
  })
  .get("/:key/events", sessionEvents)
  .get("/:key/attachments/:name", async (c) => {
    const identity = c.get("identity");
    // The child's own run token reads its files (a webhook agent fetches them); otherwise the usual access.
    const session =
      identity.kind === "run" && identity.claims.sessionKey === c.req.param("key").toLowerCase()
        ? sessionApi(c.env.SESSION, identity.claims.sessionKey)
        : pathSession(c);
    const file = unwrapResult(await session.attachment(c.req.param("name")));
    return new Response(file.bytes, {
      headers: { "Content-Type": file.mimeType ?? "application/octet-stream" },
    });
  })
  .get("/:key/transcript.jsonl", async (c) => {
    const session = pathSession(c);
    // The first chunk is read before answering, so a missing session is a clean 404.
    const first = unwrapResult(await session.exportChunk(0, EXPORT_CHUNK_ROWS));
    const encoder = new TextEncoder();
    let next: { lines: string[]; lastSeq: number } | undefined = first;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!next || next.lines.length === 0) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next.lines.map((line) => `${line}\n`).join("")));
        next =
          next.lines.length < EXPORT_CHUNK_ROWS
            ? undefined
            : unwrapResult(await session.exportChunk(next.lastSeq, EXPORT_CHUNK_ROWS));
      },
    });
    return new Response(stream, { headers: { "Content-Type": "application/x-ndjson; charset=utf-8" } });
  });
