import { AppError, domainErrorCode } from "../errors";
import type { Result } from "../session/api";

/** A domain result as a value, or the matching HTTP error (404, 409, 403). */
export function unwrapResult<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new AppError(domainErrorCode[result.code], result.message);
}
