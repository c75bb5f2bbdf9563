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
