import { z } from "zod";
import type { RouteDoc } from "./types";

/** A hook's answer (SPEC §22): the run it started, or the one its Idempotency-Key started first. */
export const hookAcceptedSchema = z.object({
  runId: z.string().describe("wait for it with `POST /v1/runs/{runId}/wait` (an operator's token)"),
  sessionKey: z
    .string()
    .describe("the session it runs in: `agent:<id>:hook:<uuid>` unless the hook names one"),
});

/** `POST /v1/hooks/{name}`: its body is any JSON, handed to the agent as data. */
const hookBodySchema = z
  .unknown()
  .describe("Any JSON (at most 256 KiB), fenced as untrusted data for the agent.");

export const hookRouteDocs: RouteDoc[] = [
  {
    method: "POST",
    path: "/v1/hooks/:name",
    operationId: "postHook",
    summary: "Call a hook",
    description:
      "Starts a run of the hook's agent with the POSTed JSON, fenced as untrusted data under the hook's configured `message`. Proved with the hook's own secret: `Authorization: Bearer <secret>`, or `X-Switchboard-Signature` made with it as SPEC §8 says; an operator's or agent's token is refused (401) and nothing starts. The run's outcome is delivered as the hook's `delivery` says (`none` by default).",
    tag: "Hooks",
    auth: "signature",
    pathParams: { name: "A hook configured under `hooks`." },
    headers: [
      {
        name: "Idempotency-Key",
        description:
          "A redelivery with the same key within 24 hours answers the same 202 and starts nothing.",
      },
    ],
    body: { name: "HookPayload", schema: hookBodySchema, example: { build: 1234, status: "failed" } },
    responses: [
      {
        status: 202,
        description: "The run started (or the one a repeat of the same Idempotency-Key started).",
        schema: hookAcceptedSchema,
        name: "HookAccepted",
        example: {
          runId: "3f1c2a9e-7b4d-4e1a-9c55-0d2b8e6f1a77",
          sessionKey: "agent:main:hook:5b6e0c1d-2f3a-4b5c-8d9e-0f1a2b3c4d5e",
        },
      },
    ],
    errors: [400, 401, 404, 413, 500, 503],
  },
];
