import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { DomainErrorCode } from "./session/api";

/** Every error the HTTP surface can answer with; the map below is the only place statuses are chosen. */
export const errorStatus = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  tool_not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  config_invalid: 500,
  internal: 500,
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorStatus;

/** Every domain failure's code on the HTTP surface: exhaustive, so a new domain code cannot go unmapped. */
export const domainErrorCode = {
  not_found: "not_found",
  conflict: "conflict",
  forbidden: "forbidden",
} as const satisfies Record<DomainErrorCode, ErrorCode>;

/** An error meant for the caller: its message goes on the wire, its cause never does. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "AppError";
  }

  get status(): ContentfulStatusCode {
    return errorStatus[this.code];
  }
}

/** A 400 naming the offending field. */
export function badRequest(message: string): AppError {
  return new AppError("bad_request", message);
}

/**
 * Args that fail a tool's schema: `bad_request` like any bad input on `/v1`, but `/tools/invoke` tells
 * them apart from a bad request envelope, as OpenClaw's gateway does (SPEC §9).
 */
export class ToolInputError extends AppError {
  constructor(message: string) {
    super("bad_request", message);
    this.name = "ToolInputError";
  }
}

/** OpenClaw's error `type` on `/tools/invoke` for each of our codes: its own names where it has one. */
const invokeTypeOfCode = {
  bad_request: "invalid_request",
  invalid_json: "invalid_request",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  not_found: "not_found",
  tool_not_found: "not_found",
  conflict: "conflict",
  payload_too_large: "payload_too_large",
  config_invalid: "config_invalid",
  internal: "internal",
  unavailable: "unavailable",
} as const satisfies Record<ErrorCode, string>;

/** Every error `type` `/tools/invoke` answers with. */
export const invokeErrorTypes = [...new Set(["tool_error" as const, ...Object.values(invokeTypeOfCode)])];

export type InvokeErrorType = (typeof invokeErrorTypes)[number];

/** The `/tools/invoke` error types answered with an HTTP status (bad tool args are a 400). */
export function invokeTypesFor(status: number): InvokeErrorType[] {
  const codes = (Object.keys(errorStatus) as ErrorCode[]).filter((code) => errorStatus[code] === status);
  const types = codes.map((code): InvokeErrorType => invokeTypeOfCode[code]);
  return [...new Set(status === errorStatus.bad_request ? ["tool_error" as const, ...types] : types)];
}

/** The `/tools/invoke` error type of an error: `tool_error` for bad tool args, else by its code. */
export function invokeErrorType(error: AppError): InvokeErrorType {
  return error instanceof ToolInputError ? "tool_error" : invokeTypeOfCode[error.code];
}
