import { deleteSessionQuerySchema, sessionDeletedSchema } from "../routes/v1/erasure-schemas";
import {
  chatAcceptedSchema,
  chatSendSchema,
  compactionAnswerSchema,
  compactSessionSchema,
  createSessionSchema,
  importReceiptSchema,
  importTranscriptSchema,
  patchSessionSchema,
} from "../routes/v1/session-schemas";
import { sessionRowSchema } from "../session/api";
import { streamedSendResponse } from "./routes-streams";
import type { RouteDoc } from "./types";

const keyParam = {
  key: "The session key, URL-encoded (`agent%3Amain%3Amain`). Agent tokens may give a legacy key, read as their own agent's.",
};

// The row's schema is the one the session object builds its rows from (src/session/record/row.ts).
const sessionRow = sessionRowSchema;

const sessionExample = {
  key: "agent:main:discord:group:dev",
  agentId: "main",
  kind: "group",
  channel: "discord",
  sessionId: "0b5f7f5e-3c1d-4d2a-9a77-5f0c2b6f1a10",
  label: "dev",
  displayName: "Dev chat",
  createdAt: 1767225600000,
  updatedAt: 1767225600000,
  model: "scripted/main",
  derivedTitle: "Dev chat",
  deliveryContext: { channel: "discord", to: "group:dev" },
};

/** Operator and integration REST for sessions (SPEC §9). */
export const sessionRouteDocs: RouteDoc[] = [
  {
    method: "POST",
    path: "/v1/sessions",
    operationId: "createSession",
    summary: "Create a session",
    description:
      "Creates a session under a given key, or a fresh `agent:<agentId>:api:<uuid>` session. Operators name the agent; agent tokens create in their own agent.",
    tag: "Sessions",
    auth: "bearer",
    body: {
      name: "CreateSessionRequest",
      schema: createSessionSchema,
      example: {
        agentId: "main",
        key: "agent:main:discord:group:dev",
        label: "dev",
        displayName: "Dev chat",
      },
    },
    responses: [
      { status: 201, description: "Created.", schema: sessionRow, name: "Session", example: sessionExample },
    ],
    errors: [400, 401, 403, 409, 413, 500],
  },
  {
    method: "GET",
    path: "/v1/sessions/:key",
    operationId: "getSession",
    summary: "Get a session",
    tag: "Sessions",
    auth: "bearerOrGrant",
    pathParams: keyParam,
    responses: [
      {
        status: 200,
        description: "The session.",
        schema: sessionRow,
        name: "Session",
        example: sessionExample,
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "PATCH",
    path: "/v1/sessions/:key",
    operationId: "patchSession",
    summary: "Update a session",
    description:
      "Sets or clears (`null`) the label, display name, send policy, model override or thinking level; `archived` archives (true) or lists again (false) and needs `expectedSessionId`, the sessionId you read: if the key now names a newer session, 409 and nothing changes.",
    tag: "Sessions",
    auth: "bearer",
    pathParams: keyParam,
    body: {
      name: "PatchSessionRequest",
      schema: patchSessionSchema,
      example: { label: "dev", sendPolicy: "deny", model: null },
    },
    responses: [
      {
        status: 200,
        description: "The updated session.",
        schema: sessionRow,
        name: "Session",
        example: sessionExample,
      },
    ],
    errors: [400, 401, 403, 404, 409, 413, 500],
  },
  {
    method: "DELETE",
    path: "/v1/sessions/:key",
    operationId: "deleteSession",
    summary: "Delete a session",
    description:
      "Removes the session from every store (SPEC §23). With `erase=true` (the operator only; an agent token is refused 403) it also erases the copies of its text in other sessions: the messages it sent them, its replies and announces, its requester's copies and the quotes others made of them, each replaced by `[erased]` with its search row deleted; its children, erased likewise; `sent` records and watch notices. Each session changed logs an `erased` event, without the text, and the search index is optimized. Asking again after a failure finishes the erasure; a session of more than 1,000 descendants is erased in parts, each answered 409 until the last.",
    tag: "Sessions",
    auth: "bearer",
    pathParams: keyParam,
    query: {
      erase: "`true`: erase the copies of the session's text in other sessions too (operator only).",
    },
    querySchema: deleteSessionQuerySchema,
    responses: [
      {
        status: 200,
        description: "Deleted; with `erase=true`, what was erased per store.",
        schema: sessionDeletedSchema,
        name: "SessionDeleted",
        example: {
          deleted: true,
          erased: {
            sessions: 1,
            messages: 4,
            searchRows: 4,
            children: 1,
            sent: 0,
            notices: 1,
            quotes: 2,
            summaries: 1,
            pending: 0,
          },
        },
      },
    ],
    errors: [400, 401, 403, 404, 409, 500],
  },
  {
    method: "POST",
    path: "/v1/sessions/:key/compact",
    operationId: "compactSession",
    summary: "Compact a session",
    description:
      "Summarizes the session's older turns with its agent's model into the summary its later prompts start from, keeping the newest turns verbatim (SPEC §20), even when the session fits its window. The transcript keeps every message; history and export are unchanged. A `compacted` event is logged and the status card counts it. A model that fails leaves the session as it was: `compacted: false` with the reason.",
    tag: "Sessions",
    auth: "bearer",
    pathParams: keyParam,
    body: { name: "CompactSessionRequest", schema: compactSessionSchema, example: {} },
    responses: [
      {
        status: 200,
        description: "Compacted, or why not.",
        schema: compactionAnswerSchema,
        name: "CompactionAnswer",
        example: {
          compacted: true,
          operationId: "6f1c1a52-2b7e-4f3f-a6a4-0d9c8c1e2f3a",
          summarizedMessages: 38,
          keptMessages: 4,
          compactionCount: 1,
        },
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "POST",
    path: "/v1/sessions/:key/transcript",
    operationId: "importTranscript",
    summary: "Import transcript messages",
    description: "Appends messages; a message whose `id` is already in the transcript is skipped.",
    tag: "Sessions",
    auth: "bearer",
    pathParams: keyParam,
    body: {
      name: "ImportTranscriptRequest",
      schema: importTranscriptSchema,
      example: {
        messages: [
          { id: "m1", role: "user", content: "Hello", timestamp: 1767225600000 },
          { id: "m2", role: "assistant", content: [{ type: "text", text: "Hi!" }], timestamp: 1767225601000 },
        ],
      },
    },
    responses: [
      {
        status: 200,
        description: "Counts.",
        schema: importReceiptSchema,
        name: "ImportReceipt",
        example: { imported: 2, skipped: 0, totalMessages: 2 },
      },
    ],
    errors: [400, 401, 403, 404, 413, 500],
  },
  {
    method: "POST",
    path: "/v1/sessions/:key/messages",
    operationId: "sendChatMessage",
    summary: "Send a message (chat.send)",
    description:
      "Appends a user message and queues a run; wait for it with `POST /v1/runs/{runId}/wait`. A repeated `idempotencyKey` returns the first run. With `stream: true` the answer is the run's event stream instead (200 `text/event-stream`).",
    tag: "Sessions",
    auth: "bearerOrGrant",
    pathParams: keyParam,
    body: {
      name: "ChatSendRequest",
      schema: chatSendSchema,
      example: { text: "What changed since yesterday?", idempotencyKey: "chat-42" },
    },
    responses: [
      {
        status: 202,
        description: "Accepted; the run is queued.",
        schema: chatAcceptedSchema,
        name: "ChatAccepted",
        example: { runId: "5d0c3a59-0d7e-4b52-a1f4-8c0f3a6b2e11", status: "accepted" },
      },
      streamedSendResponse,
    ],
    errors: [400, 401, 403, 404, 413, 500],
  },
  {
    method: "GET",
    path: "/v1/sessions/:key/attachments/:name",
    operationId: "getAttachment",
    summary: "Read a spawned session's attachment",
    description:
      "The bytes of a file given to `sessions_spawn`, with its MIME type. The child's own run token may read its files, as a webhook agent does.",
    tag: "Sessions",
    auth: "bearer",
    pathParams: { ...keyParam, name: "The attachment's file name, URL-encoded." },
    responses: [
      {
        status: 200,
        description: "The file, as its MIME type (default `application/octet-stream`).",
        contentType: "application/octet-stream",
        schema: { type: "string", contentMediaType: "application/octet-stream" },
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "GET",
    path: "/v1/sessions/:key/transcript.jsonl",
    operationId: "exportTranscript",
    summary: "Export the transcript (JSONL)",
    description: "One message per line, exactly as stored or imported, oldest first.",
    tag: "Sessions",
    auth: "bearer",
    pathParams: keyParam,
    responses: [
      {
        status: 200,
        description: "The transcript as newline-delimited JSON.",
        contentType: "application/x-ndjson",
        schema: { type: "string" },
        example: '{"id":"m1","role":"user","content":"Hello","timestamp":1767225600000}\n',
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
];
