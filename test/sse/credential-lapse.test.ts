import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RUN_TOKEN_GRACE_MS } from "../../src/routes/middleware";
import { sseFrame } from "../../src/sse/frames";
import { guardStream, RECHECK_MS } from "../../src/sse/guard";
import { readSse } from "../../src/sse/reader";
import {
  ADMIN,
  call,
  createSession,
  grantFor,
  importMessages,
  msg,
  openStream,
  runToken,
  sessionPath,
  uid,
} from "../support";

/** A session with a grant's live stream open on it, past its `ready`. */
async function grantStream(key: string) {
  await createSession({ key });
  const grant = await grantFor(key, ["events"]);
  const stream = await openStream(sessionPath(key, "/events"), { token: grant.token });
  expect(stream.status).toBe(200);
  expect((await stream.next()).event).toBe("ready");
  return { grant, stream };
}

/** Something new in the session: a message the stream would carry. */
const newMessage = (key: string, id: string) =>
  importMessages(key, [msg(id, "user", `news ${id}`, Date.now())]);

describe("an open stream ends once its credential no longer holds", () => {
  it("a grant revoked while its stream is open: the next event is not sent, a close frame says why", async () => {
    const key = `agent:main:api:lapse-${uid()}`;
    const { grant, stream } = await grantStream(key);
    await newMessage(key, "before");
    expect((await stream.next()).event).toBe("message");
    expect((await call("DELETE", `/v1/grants/${grant.grantId}`, { token: ADMIN })).status).toBe(200);
    await newMessage(key, "after");
    const last = await stream.next();
    expect(last.event).toBe("close");
    expect(last.data).toMatchObject({ reason: "revoked" });
    expect(last.data.lastEventId).toEqual(expect.any(String));
    expect(await stream.ended()).toBe(true);
  });

  it("a grant past its expiry: closed with reason expired", async () => {
    const key = `agent:main:api:expiry-${uid()}`;
    const { grant, stream } = await grantStream(key);
    // Its time is up (written into its row as time passing would leave it, no sleeping).
    await env.DB.prepare("UPDATE grants SET expires_at = ? WHERE grant_id = ?")
      .bind(Date.now() - 1, grant.grantId)
      .run();
    await newMessage(key, "late");
    const last = await stream.next();
    expect([last.event, last.data.reason]).toEqual(["close", "expired"]);
    expect(await stream.ended()).toBe(true);
  });

  it("a grant whose session is deleted: the stream ends", async () => {
    const key = `agent:main:api:gone-${uid()}`;
    const { stream } = await grantStream(key);
    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);
    expect(await stream.ended()).toBe(true);
  });

  it("a run token's stream, more than a minute after its run ended: closed with reason expired", async () => {
    const key = `agent:main:api:run-${uid()}`;
    const token = await runToken({ sessionKey: key });
    const stream = await openStream(sessionPath(key, "/events"), { token });
    expect(stream.status).toBe(200);
    expect((await stream.next()).event).toBe("ready");
    await newMessage(key, "while-live");
    expect((await stream.next()).event).toBe("message");
    // The run ended longer ago than the token's grace (written as time passing would leave it).
    await runInDurableObject(env.SESSION.getByName(key), (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE run SET status = 'completed', ended_at = ? WHERE status = 'running'",
        Date.now() - RUN_TOKEN_GRACE_MS - 1000,
      );
    });
    await newMessage(key, "after-run");
    const last = await stream.next();
    expect([last.event, last.data.reason]).toEqual(["close", "expired"]);
  });

  it("an operator's stream is not re-checked: it goes on", async () => {
    const key = `agent:main:api:operator-${uid()}`;
    await createSession({ key });
    const stream = await openStream(sessionPath(key, "/events"));
    await stream.next();
    await newMessage(key, "one");
    expect((await stream.next()).event).toBe("message");
    await stream.close();
  });
});

describe("guardStream", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** An upstream stream that stays open with nothing to send, as an idle session's does. */
  function idleUpstream(): Response {
    return new Response(new ReadableStream<Uint8Array>({ start() {} }), {
      headers: { "content-type": "text/event-stream" },
    });
  }

  it(`asks again every ${RECHECK_MS / 1000} s while no event comes, and ends when the answer changes`, async () => {
    vi.useFakeTimers();
    let holds = true;
    let checks = 0;
    const guarded = guardStream(idleUpstream(), {
      check: async () => {
        checks++;
        return holds ? undefined : "revoked";
      },
    });
    const events = readSse(guarded.body as ReadableStream<Uint8Array>);
    const first = events.next();
    await vi.advanceTimersByTimeAsync(RECHECK_MS);
    expect(checks).toBe(1);
    holds = false;
    await vi.advanceTimersByTimeAsync(RECHECK_MS);
    expect(checks).toBe(2);
    const close = await first;
    expect(close.value?.event).toBe("close");
    expect(JSON.parse(close.value?.data ?? "{}")).toEqual({ reason: "revoked", lastEventId: null });
    expect((await events.next()).done).toBe(true);
  });

  it("ends at the credential's own expiry without waiting for a check", async () => {
    vi.useFakeTimers();
    const upstream = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(sseFrame("message", { n: 1 }, 7));
        },
      }),
    );
    const guarded = guardStream(upstream, { check: async () => undefined, expiresAt: Date.now() + 2500 });
    const events = readSse(guarded.body as ReadableStream<Uint8Array>);
    expect((await events.next()).value?.id).toBe("7");
    const next = events.next();
    await vi.advanceTimersByTimeAsync(2500);
    const close = await next;
    expect(JSON.parse(close.value?.data ?? "{}")).toEqual({ reason: "expired", lastEventId: "7" });
  });

  it("a check that fails closes the stream as unverified rather than going on unchecked", async () => {
    const upstream = new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(sseFrame("message", { n: 1 }, 1));
        },
      }),
    );
    const guarded = guardStream(upstream, {
      check: () => Promise.reject(new Error("D1 unreachable")),
    });
    const events = readSse(guarded.body as ReadableStream<Uint8Array>);
    const first = await events.next();
    expect(first.value?.event).toBe("close");
    expect(JSON.parse(first.value?.data ?? "{}")).toMatchObject({ reason: "unverified" });
  });
});
