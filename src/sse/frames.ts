/** Server-sent events framing (the `text/event-stream` format EventSource reads). */
const encoder = new TextEncoder();

/** One event; the data is one line of JSON (JSON.stringify never writes a raw newline). */
export function sseFrame(event: string, data: unknown, id?: number | string): Uint8Array {
  return encoder.encode(
    `${id !== undefined ? `id: ${id}\n` : ""}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
  );
}

/** A comment line: keeps proxies from closing an idle connection, and is ignored by readers. */
export function sseComment(text: string): Uint8Array {
  return encoder.encode(`: ${text}\n\n`);
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
} as const;

/** A stream ends after this long (SPEC §14); EventSource reconnects with Last-Event-ID. */
export const STREAM_LIFETIME_MS = 5 * 60 * 1000;
/** A comment this often keeps an idle stream open through proxies. */
export const KEEP_ALIVE_MS = 15_000;
