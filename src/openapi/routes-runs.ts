import { inboundAnswerSchema, inboundMessageSchema } from "../channels/inbound";
import { waitBodySchema } from "../routes/v1/runs";
import { webhookAnswerSchema } from "../runtimes/webhook";
import { runRecordSchema } from "../session/api";
import { waitResultSchema } from "./components";
import type { RouteDoc } from "./types";

const runIdParam = { runId: "The run id (from chat.send, sessions_send or a channel message)." };

const waitExample = {
  runId: "5d0c3a59-0d7e-4b52-a1f4-8c0f3a6b2e11",
  status: "ok",
  runStatus: "ok",
  reply: "pong",
  startedAt: 1767225600100,
  endedAt: 1767225601300,
};

/** Runs (SPEC §7) and inbound channel messages (SPEC §8). */
export const routeRunDocs: RouteDoc[] = [
  {
    method: "GET",
    path: "/v1/runs/:runId",
    operationId: "getRun",
    summary: "Get a run",
    description:
      "Operators see any run; agent tokens their agent's runs; run tokens their own run. An ended run of a collector spawned with an outputSchema also has `structured` (its structured_output result) or `schemaError`.",
    tag: "Runs",
    auth: "bearer",
    pathParams: runIdParam,
    responses: [
      {
        status: 200,
        description: "The run record.",
        schema: runRecordSchema,
        name: "Run",
        example: {
          runId: "5d0c3a59-0d7e-4b52-a1f4-8c0f3a6b2e11",
          sessionKey: "agent:main:main",
          status: "ok",
          deferred: false,
          createdAt: 1767225600000,
          startedAt: 1767225600100,
          endedAt: 1767225601300,
          reply: "pong",
          attempts: 1,
          retries: [],
        },
      },
    ],
    errors: [401, 403, 404, 500],
  },
  {
    method: "POST",
    path: "/v1/runs/:runId/wait",
    operationId: "waitForRun",
    summary: "Wait for a run (agent.wait)",
    description:
      "Waits up to `timeoutMs` for the run to end. `status` is `ok`, `error` (failed or killed) or `timeout` (the wait or the run ran out; wait again).",
    tag: "Runs",
    auth: "bearer",
    pathParams: runIdParam,
    body: { name: "WaitForRunRequest", schema: waitBodySchema, example: { timeoutMs: 30000 } },
    responses: [
      {
        status: 200,
        description: "The wait's result.",
        schema: waitResultSchema,
        name: "WaitResult",
        example: waitExample,
      },
    ],
    errors: [400, 401, 403, 404, 413, 500],
  },
  {
    method: "POST",
    path: "/v1/runs/:runId/result",
    operationId: "postRunResult",
    summary: "Post a deferred run's result",
    description:
      "A webhook agent that answered its run with 202 posts the reply here, with the run token it was given.",
    tag: "Runs",
    auth: "bearer",
    pathParams: runIdParam,
    body: {
      name: "RunResultRequest",
      schema: webhookAnswerSchema,
      example: { text: "Done: three sources agree.", usage: { input: 120, output: 30 } },
    },
    responses: [
      {
        status: 200,
        description: "The run's result.",
        schema: waitResultSchema,
        name: "WaitResult",
        example: waitExample,
      },
    ],
    errors: [400, 401, 403, 404, 413, 500],
  },
  {
    method: "POST",
    path: "/v1/channels/:channel/messages",
    operationId: "postChannelMessage",
    summary: "Inbound channel message",
    description:
      "A message from a chat integration, signed with the channel's secret. Maps to a session key, applies `/send` commands and the send policy, appends the message and queues a run; `messageId` deduplicates redelivery.",
    tag: "Channels",
    auth: "signature",
    pathParams: { channel: "A channel configured under `channels` (`discord`, `telegram`, `webchat`, …)." },
    body: {
      name: "InboundMessageRequest",
      schema: inboundMessageSchema,
      example: {
        chatType: "group",
        chatId: "dev",
        senderId: "u-123",
        text: "Can someone check the deploy?",
        messageId: "msg-1001",
      },
    },
    responses: [
      {
        status: 200,
        description: "A `/send on|off|inherit` command from an owner, applied.",
        schema: inboundAnswerSchema,
        name: "InboundAnswer",
        example: {
          status: "command",
          sessionKey: "agent:main:discord:group:dev",
          sendPolicy: "deny",
          duplicate: false,
        },
      },
      {
        status: 202,
        description: "Accepted (`runId` queued), or `blocked` by the send policy (recorded, no run).",
        schema: inboundAnswerSchema,
        name: "InboundAnswer",
        example: {
          status: "accepted",
          runId: "5d0c3a59-0d7e-4b52-a1f4-8c0f3a6b2e11",
          sessionKey: "agent:main:discord:group:dev",
          duplicate: false,
        },
      },
    ],
    errors: [400, 401, 404, 413, 500, 503],
  },
];
