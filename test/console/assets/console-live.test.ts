import { describe, expect, it } from "vitest";
// The browser's own module: its top level touches no DOM, so workerd runs it. The query keeps off the
// Text rule (wrangler.toml matches the import as written), so this is the module, not its text.
import { events } from "../../../src/console/assets/console-live.js?module";
import { sseComment, sseFrame } from "../../../src/sse/frames";

const text = new TextEncoder();

/** A `text/event-stream` response whose body arrives in these chunks, in order. */
function streamOf(chunks: (string | Uint8Array)[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? text.encode(chunk) : chunk);
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** Every event the console's reader yields for `response`. */
async function read(response: Response) {
  const seen = [];
  for await (const event of events(response)) seen.push(event);
  return seen;
}

describe("console-live.js events(): the console's reader of the Worker's streams", () => {
  it("reads the frames the Worker writes: id, name and JSON data, comments skipped", async () => {
    const response = streamOf([
      sseFrame("ready", { stateVersion: 3 }, 3),
      sseComment("keep-alive"),
      sseFrame("message", { kind: "message", text: "a\nb" }, 4),
      sseFrame("close", { reason: "expired", lastEventId: "4" }),
    ]);
    expect(await read(response)).toEqual([
      { id: "3", event: "ready", data: { stateVersion: 3 } },
      { id: "4", event: "message", data: { kind: "message", text: "a\nb" } },
      { event: "close", data: { reason: "expired", lastEventId: "4" } },
    ]);
  });

  it("joins a frame split across chunks and CRLF line ends; plain data stays text, an empty frame none", async () => {
    const response = streamOf([
      "id: 7\r\nevent: delta\r\nda",
      "ta: not json\r\ndata: second line\r\n\r\n",
      "event: x\n\n",
    ]);
    expect(await read(response)).toEqual([{ id: "7", event: "delta", data: "not json\nsecond line" }]);
  });

  it("yields nothing for a response without a body", async () => {
    expect(await read(new Response(null))).toEqual([]);
  });
});
