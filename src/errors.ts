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
