// `switchboard/client`: a typed, fetch-based Switchboard client with no run-time dependencies.
// TypeScript source, not a build: import it from a TypeScript project (or a bundler) as it is.
import type { ToolFailure } from "./types";

export { SwitchboardClient } from "./client";
export {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  ServerError,
  SwitchboardError,
  type SwitchboardErrorKind,
  TimeoutError,
  UnauthorizedError,
} from "./errors";
export { type ClientOptions, DEFAULT_BASE_URL, type FetchLike } from "./http";
export type * from "./types";

/** True for a tool's refusal result (`{ status: "error" | "forbidden", error }`), which is not thrown. */
export function isToolFailure<T extends object>(result: T): result is T & ToolFailure {
  const status = (result as { status?: unknown }).status;
  return (
    (status === "error" || status === "forbidden") &&
    typeof (result as { error?: unknown }).error === "string"
  );
}
