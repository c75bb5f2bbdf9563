/**
 * What a grant sees of its one session (SPEC §18): nothing that names another session. Keys of other
 * sessions (a parent, a child, a sender, a delivery target) are taken out of rows, event data, summaries
 * and provenance; what a message itself says stays as written.
 */

/** A canonical key inside a text: `agent:<agentId>:<rest>`, up to a space, quote or closing bracket. */
const KEY_IN_TEXT = /agent:[a-z0-9][a-z0-9_-]{0,63}:[^\s"'<>,;()[\]{}]+/gi;
const KEY_ALONE = /^agent:[a-z0-9][a-z0-9_-]{0,63}:\S+$/i;
/** What a summary says instead of another session's key. */
export const ANOTHER_SESSION = "another session";

/** Row fields that only ever name other sessions: a grant's view has none of them. */
const OTHER_SESSION_FIELDS = ["spawnedBy", "parentSessionKey", "childSessions"] as const;

function scrubText(text: string, ownKey: string): string {
  return text.replace(KEY_IN_TEXT, (key) => (key === ownKey ? key : ANOTHER_SESSION));
}

/**
 * A JSON value with other sessions' keys taken out: a string that is another session's key is dropped
 * (as an object field) or replaced (in an array or a text); `keep` names fields left as they are.
 */
export function withoutOtherKeys<T>(value: T, ownKey: string, keep: readonly string[] = []): T {
  return scrub(value, ownKey, new Set(keep)) as T;
}

function scrub(value: unknown, ownKey: string, keep: ReadonlySet<string>): unknown {
  if (typeof value === "string") return scrubText(value, ownKey);
  if (Array.isArray(value)) return value.map((item) => scrub(item, ownKey, keep));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [field, item] of Object.entries(value)) {
    if (keep.has(field)) out[field] = item;
    else if (typeof item === "string" && KEY_ALONE.test(item) && item !== ownKey) continue;
    else out[field] = scrub(item, ownKey, keep);
  }
  return out;
}

/** A session row as its grant sees it: no parent or children, no other key anywhere in it. */
export function grantRow<T extends object>(row: T, ownKey: string): T {
  const copy: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const field of OTHER_SESSION_FIELDS) delete copy[field];
  return withoutOtherKeys(copy, ownKey, ["lastMessagePreview", "key"]) as T;
}

/**
 * A message as a grant reads it: its text untouched, its provenance without other sessions' keys (a
 * sender's key, the session it was routed through).
 */
export function grantMessage<T extends { provenance?: unknown }>(message: T, ownKey: string): T {
  if (message.provenance === undefined) return message;
  return { ...message, provenance: withoutOtherKeys(message.provenance, ownKey) };
}
