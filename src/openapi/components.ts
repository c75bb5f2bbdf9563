import { z } from "zod";
import { type ErrorCode, errorStatus, invokeErrorTypes, invokeTypesFor } from "../errors";
import { toolFailureSchema } from "../tools/results";
import { zodJsonSchema } from "./json-schema";
import type { ErrorStatus, JsonSchema } from "./types";

const errorCodes = Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]];

/** The error model of every route but `/tools/invoke` (STYLE.md convention 3). */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(errorCodes).describe("machine-readable error code"),
    message: z.string().describe("what went wrong, naming the field for bad input"),
  }),
});

/** OpenClaw's error model on `/tools/invoke` (SPEC §9). */
export const invokeErrorBodySchema = z.object({
  ok: z.literal(false),
  error: z.object({
    type: z
      .enum(invokeErrorTypes)
      .describe(
        "OpenClaw's error type: `not_found` (tool not available), `tool_error` (bad args), `invalid_request` (bad envelope)",
      ),
    message: z.string(),
  }),
});

/** The result envelope of `/tools/invoke` and MCP (SPEC §5.0). */
export const toolEnvelopeSchema = z.object({
  content: z.array(
    z.object({
      type: z.literal("text"),
      text: z.string().describe("JSON of details; for session_status, its status card"),
    }),
  ),
  details: z.looseObject({}).describe("the tool's result"),
});

/** `/tools/invoke`'s answer for every result, forbidden and error results included (SPEC §9). */
export const invokeResultSchema = z.object({ ok: z.literal(true), result: toolEnvelopeSchema });

/** The answer of a run wait or a deferred result (src/routes/v1/run-view.ts). */
export const waitResultSchema = z.object({
  runId: z.string(),
  status: z.enum(["ok", "error", "timeout"]),
  runStatus: z.enum(["queued", "running", "ok", "error", "timeout", "killed"]),
  reply: z.string().optional(),
  error: z.string().optional(),
  startedAt: z.number().optional(),
  endedAt: z.number().optional(),
});

const statusNames: Record<ErrorStatus, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  500: "ServerError",
  503: "Unavailable",
};

const statusMeanings: Record<ErrorStatus, string> = {
  400: "Bad input; the message names the field.",
  401: "Missing or bad credential; no detail is given.",
  403: "A valid credential acting outside its scope; the message says why.",
  404: "Not found.",
  409: "Conflicts with the current state.",
  413: "Request body over 2 MB.",
  500: "The configuration is invalid (`config_invalid`, naming the bad path) or an internal error (sanitized).",
  503: "A dependency or secret the route needs is missing.",
};

const exampleMessages: Partial<Record<ErrorCode, string>> = {
  bad_request: "sessionKey required",
  unauthorized: "unauthorized",
  forbidden: "run tokens may not use the sessions API",
  not_found: "session not found",
  conflict: "session already exists",
  payload_too_large: "request body over 2097152 bytes",
  config_invalid: "config/production.json invalid: agents.list[1].runtime.type: …",
  unavailable: "channel secret SWITCHBOARD_SIGNING_KEY is not set",
};

/** `/tools/invoke`'s own examples, where its error type says something else than our code's example. */
const invokeExampleMessages: Partial<Record<string, string>> = {
  not_found: "Tool not available: sessions_teleport",
};

/** The error codes answered with an HTTP status, from the one map in src/errors.ts. */
export function codesFor(status: number): ErrorCode[] {
  return errorCodes.filter((code) => errorStatus[code] === status);
}

/** The `components.responses` name of an error status, in either error model. */
export function errorResponseName(status: ErrorStatus, invoke = false): string {
  return `${invoke ? "Invoke" : ""}${statusNames[status]}`;
}

/** A shared error response: what the status means, its codes, the error model and an example. */
export function errorResponse(status: ErrorStatus, invoke: boolean): JsonSchema {
  const codes = codesFor(status);
  const code = codes[0] ?? "internal";
  const names: string[] = invoke ? invokeTypesFor(status) : codes;
  const listed =
    names.length > 0 ? ` ${invoke ? "Types" : "Codes"}: ${names.map((c) => `\`${c}\``).join(", ")}.` : "";
  const type = names[0] ?? "internal";
  const message =
    (invoke ? invokeExampleMessages[type] : undefined) ?? exampleMessages[code] ?? "internal error";
  return {
    description: `${statusMeanings[status]}${listed}`,
    content: {
      "application/json": {
        schema: { $ref: `#/components/schemas/${invoke ? "InvokeError" : "Error"}` },
        example: invoke ? { ok: false, error: { type, message } } : { error: { code, message } },
      },
    },
  };
}

/** Shared schemas and security schemes; error responses are added as operations use them. */
export function baseComponents() {
  return {
    schemas: {
      Error: zodJsonSchema(errorBodySchema, "output"),
      InvokeError: zodJsonSchema(invokeErrorBodySchema, "output"),
      ToolEnvelope: zodJsonSchema(toolEnvelopeSchema, "output"),
      ToolFailure: zodJsonSchema(toolFailureSchema, "output"),
    } as Record<string, JsonSchema>,
    responses: {} as Record<string, JsonSchema>,
    securitySchemes: {
      bearerAuth: {
        type: "http",
        scheme: "bearer",
        description:
          "An operator token (`SWITCHBOARD_ADMIN_TOKEN`), an agent token, or a run token minted for a run (SPEC §3).",
      },
      grantToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "sbg_<grantId>.<secret>",
        description:
          "A grant token from `POST /v1/grants` (SPEC §18): only its one session, only its scopes (`read`: get the session and its history; `send`: chat.send; `events`: its event and run streams), until it expires or is revoked. Anywhere else it is 403.",
      },
      channelSignature: {
        type: "apiKey",
        in: "header",
        name: "X-Switchboard-Signature",
        description:
          '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the channel\'s secret; 5-minute tolerance (SPEC §8).',
      },
    } as Record<string, JsonSchema>,
  };
}
