/** A short unique suffix, so no two tests share a session key. */
export function uid(): string {
  return crypto.randomUUID().slice(0, 8);
}

/** A UUID as the service mints them (sessionId, runId). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
