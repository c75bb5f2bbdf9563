import { describe, expect, it } from "vitest";
import {
  call,
  createSession,
  createSpawned,
  driveUntil,
  openStream,
  runAlarms,
  runStarted,
  send,
  sendMessage,
  session,
  sessionPath,
  storedRuns,
  uid,
  waitRun,
  webhookPosts,
} from "../../support";

const kinds = (events: { event: string }[]) => events.map((event) => event.event);

describe("run streams (SPEC §14)", () => {
  it("answers a streamed chat.send with the run: queued, started, the model's deltas in order, then its end", async () => {
    const key = `agent:model-echo:rs-${uid()}`;
    await createSession({ agentId: "model-echo", key });
    const stream = await openStream(sessionPath(key, "/messages"), {
      body: { text: "stream this reply to me", stream: true },
    });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const events = await stream.until((event) => event.event === "run_completed");
    expect(await stream.ended()).toBe(true);
    const deltas = events.filter((event) => event.event === "delta");
    // The fake model streams its text in three pieces; each is forwarded as it comes.
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(kinds(events)).toEqual([
      "run_queued",
      "run_started",
      ...deltas.map(() => "delta"),
      "run_completed",
    ]);
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_, index) => index + 1));
    const text = deltas.map((event) => (event.data.data as { text: string }).text).join("");
    const end = events.at(-1)?.data as { runId: string; data: { status: string; reply: string } };
    expect(end.data).toEqual({ status: "ok", reply: text });
    expect((await waitRun(end.runId)).reply).toBe(text);
    // After its end the run replays whole, and a reconnect mid-run resumes after its Last-Event-ID.
    const again = await openStream(`/v1/runs/${end.runId}/events`, { headers: { "Last-Event-ID": "2" } });
    const rest = await again.until((event) => event.event === "run_completed");
    expect(rest.map((event) => event.id)).toEqual(events.slice(2).map((event) => event.id));
    expect(await again.ended()).toBe(true);
  });

  it("streams the reply in its safe view: a secret the model repeats is masked in the deltas too", async () => {
    const key = `agent:model-echo:rsafe-${uid()}`;
    await createSession({ agentId: "model-echo", key });
    const secret = "sk-live0123456789abcdefXYZ";
    const stream = await openStream(sessionPath(key, "/messages"), {
      body: { text: `the key is ${secret} and that is all`, stream: true },
    });
    const events = await stream.until((event) => event.event === "run_completed");
    const text = events
      .filter((event) => event.event === "delta")
      .map((event) => (event.data.data as { text: string }).text)
      .join("");
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(text).toBe((events.at(-1)?.data.data as { reply?: string } | undefined)?.reply);
    expect(text).toContain("and that is all");
  });

  it("shows a run's tool calls with redacted args and their result status", async () => {
    const key = `agent:model-tools:rt-${uid()}`;
    await createSession({ agentId: "model-tools", key });
    const runId = await sendMessage(key, '{"search":"x","apiKey":"sk-live0123456789abcdefXYZ"}');
    const stream = await openStream(`/v1/runs/${runId}/events`);
    const events = await stream.until((event) => event.event === "run_completed");
    const call = events.find((event) => event.event === "tool_call");
    expect(call?.data.data).toMatchObject({ name: "sessions_list", args: { search: "x" } });
    expect(JSON.stringify(call?.data)).not.toContain("sk-live0123456789abcdefXYZ");
    expect(events.find((event) => event.event === "tool_result")?.data.data).toEqual({
      name: "sessions_list",
      status: "ok",
    });
  });

  it("shows a message steered into the run before the run's reply", async () => {
    const u = uid();
    const requester = `agent:steerable:rst-r-${u}`;
    const target = `agent:steerable:rst-t-${u}`;
    await createSession({ agentId: "steerable", key: requester });
    await createSpawned({ sessionKey: target, agentId: "steerable", spawnedBy: requester });
    const runId = await sendMessage(target, "wait for steering");
    const alarm = runAlarms([target]);
    await runStarted(runId);
    const stream = await openStream(`/v1/runs/${runId}/events`);
    await send(requester, { sessionKey: target, message: "turn left", mode: "steer" });
    await alarm;
    const events = await stream.until((event) => event.event === "run_completed");
    const deltas = events.filter((event) => event.event === "delta");
    expect(kinds(events)).toEqual([
      "run_queued",
      "run_started",
      "steered",
      ...deltas.map(() => "delta"),
      "run_completed",
    ]);
    expect(events[2]?.data).toMatchObject({ runId, kind: "steered" });
    expect(deltas.map((event) => (event.data.data as { text: string }).text).join("")).toBe(
      "steered: turn left",
    );
  });

  it("takes a webhook agent's progress with its run token, and nothing once the run ended", async () => {
    const key = `agent:hook-async-rec:rp-${uid()}`;
    await createSession({ agentId: "hook-async-rec", key });
    const runId = await sendMessage(key, "work on it");
    const [post] = await driveUntil(
      [key],
      async () => {
        const posts = await webhookPosts("hook-async-rec", key);
        return posts.length > 0 ? posts : undefined;
      },
      "the webhook's post",
    );
    const token = String(post?.runToken);
    const progress = (body: unknown, as = token) =>
      call("POST", `/v1/runs/${runId}/progress`, { token: as, body });
    expect((await progress({ delta: "Hel" })).status).toBe(200);
    expect((await progress({ text: "Hello" })).status).toBe(200);
    expect((await progress({ message: "checking the docs" })).status).toBe(200);
    expect((await progress({ text: "Goodbye" })).status).toBe(200);
    const refused = await progress({});
    expect([refused.status, refused.text]).toEqual([
      400,
      expect.stringContaining("one of delta, text or message"),
    ]);
    expect((await progress({ delta: "x", extra: 1 })).status).toBe(400);
    const stream = await openStream(`/v1/runs/${runId}/events`);
    const seen = await stream.until((event) => event.event === "progress");
    const running = (await storedRuns(key)).find((row) => row.runId === runId);
    expect(running?.status).toBe("running");
    expect(seen.slice(2).map((event) => [event.event, event.data.data])).toEqual([
      ["delta", { text: "Hel" }],
      ["delta", { text: "lo" }],
      ["progress", { message: "checking the docs" }],
    ]);
    const restart = await stream.until((event) => event.event === "delta" && Boolean(event.data.data));
    expect(restart.at(-1)?.data.data).toEqual({ text: "", reset: true });
    expect((await stream.next()).data.data).toEqual({ text: "Goodbye" });
    await stream.close();
    await session(key).completeDeferredRun(runId, { text: "Goodbye" });
    const late = await progress({ delta: "more" });
    expect(late.status).toBe(409);
  });
});
