import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type FetchLike, ForbiddenError, NotFoundError, type SessionStreamItem } from "../../src/client";
import { ADMIN, AGENT_TOKENS, stub, uid } from "../support";
import { recordingFetch, testClient } from "./fixtures";

/**
 * The real Worker's streams, with the connections cut as `plan` says: connection N passes `frames` whole
 * frames, then, with `close`, the close frame the server sends at a stream's lifetime, and ends. A cut
 * without `close` is a dropped connection. Connections past the plan pass through untouched.
 */
function cuttingFetch(plan: { frames: number; close?: boolean }[]) {
  const { fetch: inner, requests } = recordingFetch();
  let connection = 0;
  const fetch: FetchLike = async (input, init) => {
    const response = await inner(input, init);
    if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
    const cut = plan[connection++];
    if (!cut || !response.body) return response;
    const source = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let pending = "";
    let passed = 0;
    let lastId = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        pending += decoder.decode(value, { stream: true });
        let end = pending.indexOf("\n\n");
        while (end !== -1) {
          const frame = pending.slice(0, end + 2);
          pending = pending.slice(end + 2);
          controller.enqueue(encoder.encode(frame));
          lastId = /^id: (.*)$/m.exec(frame)?.[1] ?? lastId;
          if (!frame.startsWith(":") && ++passed === cut.frames) {
            if (cut.close)
              controller.enqueue(
                encoder.encode(`event: close\ndata: {"reason":"lifetime","lastEventId":${lastId}}\n\n`),
              );
            controller.close();
            await source.cancel();
            return;
          }
          end = pending.indexOf("\n\n");
        }
      },
      cancel: () => source.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch, requests };
}

/** Items until one matches (included). */
async function until<T>(items: AsyncIterator<T>, match: (item: T) => boolean): Promise<T[]> {
  const seen: T[] = [];
  for (;;) {
    const step = await items.next();
    if (step.done) throw new Error(`the stream ended after ${seen.length} item(s)`);
    seen.push(step.value);
    if (match(step.value)) return seen;
  }
}

const seqOf = (item: SessionStreamItem) => ("seq" in item ? item.seq : -1);

describe("client live streams", () => {
  it("events() replays from after, follows live, and resumes with Last-Event-ID after a drop and a server close", async () => {
    const { fetch, requests } = cuttingFetch([{ frames: 2 }, { frames: 2, close: true }]);
    const { client } = testClient({ token: ADMIN, fetch });
    const key = `agent:main:live-${uid()}`;
    await client.createSession({ key });
    const first = await client.sendMessage(key, { text: "ping" });
    expect((await client.waitRun(first.runId)).status).toBe("ok");

    const abort = new AbortController();
    const events = client.events(key, { after: 1, signal: abort.signal });
    const replayed = await until(events, (item) => item.kind === "run_completed");
    expect(replayed.map((item) => [seqOf(item), item.kind])).toEqual([
      [2, "message"],
      [3, "run_queued"],
      [4, "run_started"],
      [5, "message"],
      [6, "run_completed"],
    ]);
    const [userMessage] = replayed;
    expect(userMessage).toMatchObject({
      seq: 2,
      cursor: "2",
      actor: { type: expect.any(String) },
      occurredAt: expect.any(Number),
      summary: expect.any(String),
      message: { role: "user", content: "ping" },
    });
    // Connection 1 dropped after event 3; connection 2 was closed by the server after event 5.
    const streamRequests = requests.filter((request) => request.path.endsWith("/events"));
    expect(streamRequests.map((request) => request.headers.get("Last-Event-ID"))).toEqual([null, "3", "5"]);
    expect(streamRequests[0]?.headers.get("Accept")).toBe("text/event-stream");
    expect(requests.find((request) => request.path.endsWith("/events"))?.rawPath).toBe(
      `/v1/sessions/${encodeURIComponent(key)}/events`,
    );

    // Then live: the next turn's events arrive on the same iterator, in order.
    await client.sendMessage(key, { text: "ping again" });
    const live = await until(events, (item) => item.kind === "run_completed");
    expect(live.map(seqOf)).toEqual([7, 8, 9, 10, 11]);
    abort.abort();
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("sendStreamed() yields the run from queued to completed and ends; runEvents() resumes after a cursor", async () => {
    const { client, requests } = testClient({ token: ADMIN });
    const key = `agent:model-echo:live-${uid()}`;
    await client.createSession({ agentId: "model-echo", key });
    const items = [];
    for await (const item of client.sendStreamed(key, "stream this reply to me")) items.push(item);
    const sent = JSON.parse(requests.at(-1)?.body ?? "{}");
    expect(sent).toEqual({
      text: "stream this reply to me",
      idempotencyKey: expect.any(String),
      stream: true,
    });
    const kinds = items.map((item) => item.kind);
    expect(kinds[0]).toBe("run_queued");
    expect(kinds[1]).toBe("run_started");
    expect(kinds.at(-1)).toBe("run_completed");
    const deltas = items.flatMap((item) => (item.kind === "delta" ? [item.data.text] : []));
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    const end = items.at(-1);
    expect(end?.kind === "run_completed" && end.data).toEqual({ status: "ok", reply: deltas.join("") });
    const runId = items[0]?.runId ?? "";
    expect(items.every((item) => item.runId === runId && item.cursor === String(item.seq))).toBe(true);

    const rest = [];
    for await (const item of client.runEvents(runId, { after: 2 })) rest.push(item);
    expect(rest.map((item) => item.seq)).toEqual(items.slice(2).map((item) => item.seq));
    expect(requests.at(-1)?.path).toBe(`/v1/runs/${runId}/events`);
  });

  it("events() hands the caller a gap where pruned events were, then the events after it", async () => {
    const { client } = testClient({ token: ADMIN });
    const key = `agent:main:gap-${uid()}`;
    await client.createSession({ key });
    await client.waitRun((await client.sendMessage(key, { text: "ping" })).runId);
    // Events 1–3 are made older than the 30 days kept; the next append prunes them.
    await runInDurableObject(stub(key), (_instance, state) => {
      state.storage.sql.exec("UPDATE event SET occurred_at = occurred_at - 31 * 86400000 WHERE seq <= 3");
    });
    await client.patchSession(key, { label: "pruned" });
    const events = client.events(key, { after: 0 });
    expect((await events.next()).value).toEqual({ kind: "gap", after: 0, earliestAvailableSequence: 4 });
    expect((await events.next()).value).toMatchObject({ kind: "run_started", seq: 4, cursor: "4" });
    await events.return(undefined);
  });

  it("throws the client's usual errors before a stream: unknown session, another agent's run", async () => {
    const { client } = testClient({ token: ADMIN });
    await expect(client.events(`agent:main:nobody-${uid()}`).next()).rejects.toBeInstanceOf(NotFoundError);
    const key = `agent:main:live-${uid()}`;
    await client.createSession({ key });
    const { runId } = await client.sendMessage(key, { text: "ping" });
    const research = client.with({ token: AGENT_TOKENS.research });
    await expect(research.runEvents(runId).next()).rejects.toBeInstanceOf(ForbiddenError);
  });
});
