// `@switchboard/client`: a typed, fetch-based Switchboard client with no dependencies, for Node, Workers
// and browsers. Built to ESM and .d.ts in dist/ (`npm run build`); the repository's CLI runs this source.
import type { ToolFailure } from "./types.ts";

export { BOOKMARK_HEADER, Bookmarks } from "./bookmarks.ts";
export { SwitchboardClient } from "./client.ts";
export type * from "./cron-types.ts";
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
} from "./errors.ts";
export { type ClientOptions, DEFAULT_BASE_URL, type FetchLike } from "./http.ts";
export type * from "./types.ts";

/** True for a tool's refusal result (`{ status: "error" | "forbidden", error }`), which is not thrown. */
export function isToolFailure<T extends object>(result: T): result is T & ToolFailure {
  const status = (result as { status?: unknown }).status;
  return (
    (status === "error" || status === "forbidden") &&
    typeof (result as { error?: unknown }).error === "string"
  );
}
