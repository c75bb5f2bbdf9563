// Input limits (README "Limits"). Each bounds a value a caller can make the service store, query or carry
// over RPC: a Durable Object row and a D1 row hold at most 2 MB, and a write that cannot fit fails on every
// retry, so an unbounded field is answered with a 400 naming it instead. Message text (256 KiB) and the
// transcript row (1 MiB) are in src/transcript/message.ts, the request body (2 MB) in src/app.ts.

/** A session key or sessionId, in UTF-8 bytes: a D1 index key and a Durable Object name. */
export const MAX_SESSION_KEY_BYTES = 512;

/** `sessions_list.search`: a piece of a name, label, subject, sessionId or key. */
export const MAX_SEARCH_CHARS = 256;

/**
 * Nesting of a JSON value that is stored and read back over RPC (an imported message, a tool call's
 * arguments): structured cloning recurses, and overflows the stack at a few thousand levels.
 */
export const MAX_JSON_DEPTH = 64;
