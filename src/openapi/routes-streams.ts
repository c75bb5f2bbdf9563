import { z } from "zod";
import { runProgressSchema } from "../routes/v1/runs";
import { runStreamKinds, sessionEventSchema } from "../session/api";
import type { HeaderDoc, ResponseDoc, RouteDoc } from "./types";

const SSE = "text/event-stream";

const lastEventIdHeader: HeaderDoc = {
  name: "Last-Event-ID",
  description:
    "Resume after this event id (what EventSource sends when it reconnects); wins over `after`. A session stream's ids are seqs, a tree stream's are opaque cursors (`t.…`).",
};

/** How every stream is framed, said once for the session and run streams. */
const FRAMING =
  'Server-sent events: each event is `id: <cursor>` / `event: <kind>` / `data: <one line of JSON>`. A comment `: keep-alive` comes every 15 s. The server ends a connection after at most 5 minutes (or when the reader falls too far behind) with `event: close`, data `{ reason: "lifetime" | "slow_reader", lastEventId }`: reconnect with `Last-Event-ID` and nothing is lost or repeated. Refusals (bad cursor, no access) are JSON errors before any stream.';

const streamedSessionEventSchema = sessionEventSchema.extend({
  message: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "A `message` event's message: the sessions_history safe view, or exactly as stored with the operator's `raw=1`",
    ),
  sessionKey: z.string().optional().describe("On a tree stream: whose event it is"),
});

const runStreamItemSchema = z.object({
  seq: z.number().int().positive().describe("Counts within the run, from 1"),
  kind: z.enum(runStreamKinds),
  runId: z.string(),
  occurredAt: z.number().describe("ms since the epoch"),
  data: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      '`delta`: `{ text }`, or `{ text: "", reset: true }` when a retried attempt restarts the reply; `progress`: `{ message }`; `tool_call`: `{ name, args }` (secrets redacted); `tool_result`: `{ name, status }`; `run_completed`: `{ status: "ok", reply }`; `run_failed`: `{ outcome, error? }`',
    ),
});

const runStreamExample = [
  'id: 1\nevent: run_queued\ndata: {"seq":1,"kind":"run_queued","runId":"5d0c3a59-…","occurredAt":1767225600000}',
  'id: 2\nevent: run_started\ndata: {"seq":2,"kind":"run_started","runId":"5d0c3a59-…","occurredAt":1767225600100}',
  'id: 3\nevent: delta\ndata: {"seq":3,"kind":"delta","runId":"5d0c3a59-…","occurredAt":1767225600900,"data":{"text":"po"}}',
  'id: 4\nevent: delta\ndata: {"seq":4,"kind":"delta","runId":"5d0c3a59-…","occurredAt":1767225601000,"data":{"text":"ng"}}',
  'id: 5\nevent: run_completed\ndata: {"seq":5,"kind":"run_completed","runId":"5d0c3a59-…","occurredAt":1767225601300,"data":{"status":"ok","reply":"pong"}}',
]
  .map((frame) => `${frame}\n\n`)
  .join("");

/** A stream is text; each event's data is an item of `schema` (`x-item-schema`). */
const SSE_TEXT = { type: "string", description: "Server-sent events (each event's data: `x-item-schema`)" };

const runStreamResponse = (status: number, description: string): ResponseDoc => ({
  status,
  description,
  contentType: SSE,
  schema: SSE_TEXT,
  items: { name: "RunStreamItem", schema: runStreamItemSchema },
  example: runStreamExample,
});

/**
 * The streamed answer of `POST /v1/sessions/{key}/messages` with `stream: true` (documented with that
 * route in routes-sessions.ts).
 */
export const streamedSendResponse: ResponseDoc = runStreamResponse(
  200,
  "With `stream: true`: the new run's stream (as `GET /v1/runs/{runId}/events`), from `run_queued` to its end; a grant needs the `events` scope for it.",
);

/** Live streams (SPEC §14): a session's events, one run's items, and a webhook agent's progress. */
export const streamRouteDocs: RouteDoc[] = [
  {
    method: "GET",
    path: "/v1/sessions/:key/events",
    operationId: "streamSessionEvents",
    summary: "Stream a session's events (SSE)",
    description: `The session's event log (SPEC §13): replayed from a cursor, then live as events are written; without a cursor, live only, starting with \`event: ready\` whose id is the current version (data \`{ stateVersion }\`: resume from it). After events were pruned, a reader whose cursor is older first gets \`event: gap\` (no id), data \`{ after, earliestAvailableSequence }\`. ${FRAMING} Operators read any session; agent tokens their agent's; run tokens the sessions their session may read the history of; grants with the \`events\` scope their session.`,
    tag: "Streams",
    auth: "bearerOrGrant",
    pathParams: {
      key: "The session key, URL-encoded. Agent tokens may give a legacy key, read as their own agent's.",
    },
    headers: [lastEventIdHeader],
    query: {
      after:
        "Replay the events after this seq (0 = from the start); a tree stream also takes its own cursor.",
      tree: "`1`: the session's sub-agents' events too (and theirs), each with its `sessionKey`; ids become composite cursors. Sub-agent sessions the credential may not read (another agent's, or beyond its visibility) are left out; when the stream has seen them spawned, `event: hidden` (no id), data `{ sessions }`, says how many so far (sent at the start and again when the count grows).",
      raw: "`1`: messages exactly as stored instead of the safe view (operator only).",
    },
    responses: [
      {
        status: 200,
        description: "The stream; each event's data is one session event.",
        contentType: SSE,
        schema: SSE_TEXT,
        items: { name: "SessionStreamEvent", schema: streamedSessionEventSchema },
        example:
          'id: 7\nevent: message\ndata: {"seq":7,"kind":"message","actor":{"type":"human"},"occurredAt":1767225600000,"summary":"user message","data":{"messageId":"m7","role":"user"},"message":{"id":"m7","role":"user","content":"ping","timestamp":1767225600000}}\n\n: keep-alive\n\nid: 8\nevent: run_queued\ndata: {"seq":8,"kind":"run_queued","actor":{"type":"system"},"runId":"5d0c3a59-…","occurredAt":1767225600010,"summary":"run queued"}\n\n',
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "GET",
    path: "/v1/runs/:runId/events",
    operationId: "streamRunEvents",
    summary: "Stream a run (SSE)",
    description: `One run as it happens: queued, started, its reply in \`delta\`s, progress, tool calls and results, steering, then \`run_completed\` or \`run_failed\`, after which the stream ends. Without a cursor it replays the whole run first. ${FRAMING} Who may read it: as for the run's session's event stream.`,
    tag: "Streams",
    auth: "bearerOrGrant",
    pathParams: { runId: "The run id (from chat.send, sessions_send or a channel message)." },
    headers: [lastEventIdHeader],
    query: { after: "Resume after this item's seq (default 0: the whole run)." },
    responses: [runStreamResponse(200, "The stream; each event's data is one run stream item.")],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "POST",
    path: "/v1/runs/:runId/progress",
    operationId: "postRunProgress",
    summary: "Post a webhook run's progress",
    description:
      "A webhook agent working on a run tells its stream what it has so far, with the run's own token: `delta` adds reply text; `text` is the whole reply so far (what extends the streamed text goes out as a delta, anything else restarts the reply); `message` is a status line (`progress`). At least one field. 409 once the run ended.",
    tag: "Runs",
    auth: "bearer",
    pathParams: { runId: "The run id (the webhook was given it with its run token)." },
    body: {
      name: "RunProgressRequest",
      schema: runProgressSchema,
      example: { delta: "Three sources agree", message: "checking the last source" },
    },
    responses: [
      {
        status: 200,
        description: "Added to the run's stream.",
        schema: z.object({ accepted: z.literal(true) }),
        example: { accepted: true },
      },
    ],
    errors: [400, 401, 403, 404, 409, 413, 500],
  },
];
