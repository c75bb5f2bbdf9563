// Input limits (README "Limits"). Each bounds a value a caller can make the service store, query or carry
// over RPC: a Durable Object row and a D1 row hold at most 2 MB, and a write that cannot fit fails on every
// retry, so an unbounded field is answered with a 400 naming it instead. Message text (256 KiB) and the
// transcript row (1 MiB) are in src/transcript/message.ts, the request body (2 MB) in src/app.ts.

/** SPEC §11: a label is at most 512 characters; a display name and a subject share the bound. */
export const MAX_LABEL_CHARS = 512;

/** A session key or sessionId, in UTF-8 bytes: a D1 index key and a Durable Object name. */
export const MAX_SESSION_KEY_BYTES = 512;

/** An `idempotencyKey`, as `POST /v1/sessions/{key}/messages` has always taken it. */
export const MAX_IDEMPOTENCY_KEY_CHARS = 200;

/** `sessions_list.search`: a piece of a name, label, subject, sessionId or key. */
export const MAX_SEARCH_CHARS = 256;

/**
 * Nesting of a JSON value that is stored and read back over RPC (an imported message, a tool call's
 * arguments): structured cloning recurses, and overflows the stack at a few thousand levels.
 */
export const MAX_JSON_DEPTH = 64;

/** A channel name: the `<channel>` segment of a session key. */
export const MAX_CHANNEL_NAME_CHARS = 64;

/** A model name: configured ones, and a session's model override. */
export const MAX_MODEL_CHARS = 200;

/** A delivery address: `deliveryContext.to`. */
export const MAX_ADDRESS_CHARS = 256;

/** A channel's own ids (`deliveryContext.accountId`, `threadId`), as inbound messages take them. */
export const MAX_CHANNEL_ID_CHARS = 200;

/** An attachment's MIME type: RFC 6838 allows 127 characters on each side of the slash. */
export const MAX_MIME_TYPE_CHARS = 255;

/** `sessions_list.offset`: every skipped row is read, so deeper pages go by `cursor` (keyset). */
export const MAX_LIST_OFFSET = 10_000;
