// The bench's reader of the Worker's event streams: a small parser for the frames src/sse/frames.ts
// writes (`id`, `event`, one `data` line, a blank line; `:` comments), timing each event by when its
// bytes arrived, so a slow consumer never adds to a figure.

/** Parses one frame's lines; undefined for a comment. */
function parseFrame(block) {
  const event = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") event.data = event.data === undefined ? value : `${event.data}\n${value}`;
    else if (field === "id" || field === "event") event[field] = value;
  }
  return event.data === undefined ? undefined : { ...event, json: JSON.parse(event.data) };
}

/** Wall-clock milliseconds with sub-millisecond precision (the Worker's timestamps are Date.now()). */
export const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Opens an event stream: resolves once the response headers are in (the connection is registered),
 * then calls `onEvent({ id, event, data, json }, arrivedAt)` per event, `arrivedAt` in wall-clock ms.
 * `close()` disconnects; `done` settles when the stream ends (or is closed).
 */
export async function openStream(url, { method = "GET", token, body, onEvent = () => {} } = {}) {
  const abort = new AbortController();
  const response = await fetch(url, {
    method,
    signal: abort.signal,
    headers: {
      Accept: "text/event-stream",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body ? { "Content-Type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok || !response.body)
    throw new Error(`stream ${url}: ${response.status} ${await response.text()}`);
  const decoder = new TextDecoder();
  const done = (async () => {
    let buffer = "";
    for await (const chunk of response.body) {
      const arrivedAt = wallNow();
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const event = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) onEvent(event, arrivedAt);
      }
    }
  })().catch((error) => {
    if (!abort.signal.aborted) throw error;
  });
  // Awaiting `done` is optional: a stream nobody waits on must not fail the process when it breaks.
  done.catch(() => {});
  return { response, done, close: () => abort.abort() };
}
