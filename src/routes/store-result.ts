import { AppError } from "../errors";
import type { StoreResult } from "../session/types";

/** A session object's result as a value, or the matching HTTP error (404, 409). */
export function unwrapStoreResult<T>(result: StoreResult<T>): T {
  if (result.ok) return result.value;
  throw new AppError(result.code, result.message);
}
