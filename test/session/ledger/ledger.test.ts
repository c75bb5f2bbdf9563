import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { DeliveryRecord } from "../../../src/session/api";
import {
  ADMIN,
  AGENT_TOKENS,
  answerDeferred,
  call,
  deliverBatch,
  deliveries,
  driveUntil,
  expectOnlyPosts,
  inbound,
  outboxSize,
  postInbound,
  runToken,
  storedRuns,
  stub,
  uid,
} from "../../support";
import { failDeliveries } from "../../support/faults";
import {
  completionsAfter,
  completionsIn,
  requester,
  settleAll,
  spawnOk,
  subagents,
} from "../../support/subagents";

/** A row of the session's `delivery` table, as stored. */
type LedgerRow = {
  delivery_id: string;
  kind: string;
  run_id: string | null;
  target: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  first_attempt_at: number | null;
  last_error: string | null;
  updated_at: number;
  payload: string | null;
};

const ledger = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql.exec<LedgerRow>("SELECT * FROM delivery ORDER BY created_at").toArray(),
  );

/** The session's ledger once its first record is as `ready` says, driving its alarms meanwhile. */
const ledgerOnce = (key: string, ready: (row: LedgerRow) => boolean, what: string) =>
  driveUntil(
    [key],
    async () => {
      const rows = await ledger(key);
      return rows[0] && ready(rows[0]) ? rows : undefined;
    },
    what,
  );

/** The `delivery` events of a session's log, oldest first. */
const deliveryEvents = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql
      .exec<{ data: string }>("SELECT data FROM event WHERE kind = 'delivery' ORDER BY seq")
      .toArray()
      .map((row) => JSON.parse(row.data) as { deliveryId: string; status: string }),
  );

/** The clock of the session's outbox moves to its next retry: every waiting entry is due now. */
const retryTimeCame = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) => {
    state.storage.sql.exec("UPDATE outbox SET next_attempt_at = ?", Date.now());
  });

const enc = encodeURIComponent;
const api = <Body = DeliveryRecord>(method: string, path: string, token: string = ADMIN) =>
  call<Body>(method, `/v1/deliveries${path}`, { token });

type Page = { count: number; deliveries: DeliveryRecord[]; nextCursor?: string };

/** The session's records were last changed `ms` ago; then its alarm handler runs (as the clock would). */
async function agedBy(key: string, ms: number): Promise<void> {
  await runInDurableObject(stub(key), async (instance, state) => {
    state.storage.sql.exec("UPDATE delivery SET updated_at = ?", Date.now() - ms);
    await instance.alarm();
  });
}

/** A session made by a signed inbound message on `channel`; its run's reply is posted there. */
async function inboundSession(channel: string) {
  const u = uid();
  const posted = await postInbound(
    channel,
    inbound({ chatId: `dm-${u}`, senderId: `42${u}`, messageId: `m-${u}` }),
  );
  expect(posted.status, posted.text).toBe(202);
  return posted.json as { sessionKey: string; runId: string };
}

/** A spawned child of `hook-async` whose run waits for its agent's answer. */
async function deferredChild(prefix: string, label: string) {
  const r = await requester("spawner", prefix);
  const spawned = await spawnOk(r, { task: `job ${label}`, agentId: "hook-async", label });
  await driveUntil(
    [spawned.child],
    async () => ((await storedRuns(spawned.child))[0]?.deferred === 1 ? true : undefined),
    "the child's run to wait for its agent",
  );
  return { r, ...spawned };
}

describe("the delivery ledger (SPEC §16)", () => {
  it("a completion is pending, then delivered: a record, a delivery event, the index, subagents items", async () => {
    const r = await requester("spawner", "ldg-ok");
    const { child, runId } = await spawnOk(r, { task: "quick job", agentId: "worker" });
    await settleAll([r, child]);

    const [row, ...more] = await ledger(child);
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      kind: "completion",
      run_id: runId,
      target: r,
      status: "delivered",
      attempts: 1,
      next_attempt_at: null,
      payload: null,
    });
    const id = row?.delivery_id ?? "";
    expect(id).toMatch(/^dlv_[0-9a-f-]{36}$/);
    // A routine delivery is in the ledger only; what needs someone's eye is an event (below).
    expect(await deliveryEvents(child)).toEqual([]);

    const record = {
      deliveryId: id,
      kind: "completion",
      runId,
      sessionKey: child,
      target: r,
      status: "delivered",
      attempts: 1,
    };
    const listed = await driveUntil(
      [child],
      async () => {
        const page = (await api<Page>("GET", `?sessionKey=${enc(child)}`)).json;
        return page.deliveries[0]?.status === "delivered" ? page : undefined;
      },
      "the index to show the delivered record",
    );
    expect(listed).toMatchObject({ count: 1, deliveries: [record] });
    expect(listed.nextCursor).toBeUndefined();
    expect((await api("GET", `/${id}`)).json).toMatchObject({ ...record, createdAt: expect.any(Number) });
    const wait = await subagents(r, { action: "wait", runIds: [runId], timeoutSeconds: 0 });
    expect(wait.runs).toMatchObject([{ runId, deliveryStatus: "delivered" }]);
    expect((await subagents(r, {})).recent).toMatchObject([{ runId, deliveryStatus: "delivered" }]);
  });

  it("retries by the schedule, within an alarm pass too; at 30 minutes suspended, then attention, dismiss and retry", async () => {
    const { r, child, runId } = await deferredChild("ldg-sched", "flaky");
    const faults = await failDeliveries(child, 5);
    await answerDeferred(child, "the result", [child]);
    expect(faults.calls).toBe(1);

    const retryDelay = async (attempts: number) => {
      const [row] = await ledger(child);
      expect(row).toMatchObject({ status: "pending", attempts, last_error: "requester unavailable" });
      return (row?.next_attempt_at ?? 0) - (row?.updated_at ?? 0);
    };
    // While a pass holds the entry (leased a few seconds ahead), it cannot be dismissed under it.
    await runInDurableObject(stub(child), (_instance, state) => {
      state.storage.sql.exec("UPDATE outbox SET next_attempt_at = ?", Date.now() + 5000);
    });
    const [pending] = await ledger(child);
    expect(await api("POST", `/${pending?.delivery_id}/dismiss`)).toMatchObject({
      status: 409,
      json: { error: { message: expect.stringContaining("being delivered right now") } },
    });
    // delay(n) = min(300 s, 15 s · 2^(n−1)) · (1 + U[0, 0.2)) after the n-th failure.
    for (let attempt = 1; attempt <= 4; attempt++) {
      const base = 15_000 * 2 ** (attempt - 1);
      const delay = await retryDelay(attempt);
      expect(delay).toBeGreaterThanOrEqual(base);
      expect(delay).toBeLessThan(base * 1.2 + 1);
      // The alarm runs early (both of its delivery passes): the backoff holds, nothing is tried.
      await runDurableObjectAlarm(stub(child));
      expect(faults.calls).toBe(attempt);
      if (attempt < 4) {
        await retryTimeCame(child);
        await runDurableObjectAlarm(stub(child));
        expect(faults.calls).toBe(attempt + 1);
      }
    }

    // 30 minutes after the first attempt, the next failure suspends it; its payload is kept.
    await runInDurableObject(stub(child), (_instance, state) => {
      state.storage.sql.exec("UPDATE delivery SET first_attempt_at = ?", Date.now() - 30 * 60_000);
    });
    await retryTimeCame(child);
    await runDurableObjectAlarm(stub(child));
    expect(faults.calls).toBe(5);
    const [suspended] = await ledger(child);
    expect(suspended).toMatchObject({ status: "suspended", attempts: 5, next_attempt_at: null });
    expect(suspended?.payload).toContain(`completion:${runId}`);
    expect(await outboxSize(child)).toBe(0);
    const id = suspended?.delivery_id ?? "";
    expect((await deliveryEvents(child)).at(-1)).toEqual({ deliveryId: id, status: "suspended" });
    expect(await subagents(r, { action: "wait", runIds: [runId], timeoutSeconds: 5 })).toMatchObject({
      reason: "attention",
      attention: [runId],
      runs: [{ runId, deliveryStatus: "suspended" }],
    });
    const listed = await driveUntil(
      [child],
      async () => {
        const page = (await api<Page>("GET", `?status=suspended&sessionKey=${enc(child)}`)).json;
        return page.count > 0 ? page : undefined;
      },
      "the index to show the suspended record",
    );
    expect(listed.deliveries).toMatchObject([
      { deliveryId: id, status: "suspended", lastError: "requester unavailable" },
    ]);
    expect(await completionsIn(r)).toEqual([]);

    // Dismissed stays undelivered; a second dismiss, or a retry of a delivered one, is a conflict.
    expect((await api("POST", `/${id}/dismiss`)).json).toMatchObject({ deliveryId: id, status: "dismissed" });
    expect((await deliveryEvents(child)).at(-1)).toEqual({ deliveryId: id, status: "dismissed" });
    expect((await api("POST", `/${id}/dismiss`)).status).toBe(409);
    const retried = await api("POST", `/${id}/retry`);
    expect(retried).toMatchObject({ status: 200, json: { deliveryId: id, status: "pending", attempts: 0 } });
    const [completion, ...others] = await completionsAfter(r, [child, r]);
    expect(others).toEqual([]);
    expect(completion?.id).toBe(`completion:${runId}`);
    expect(await ledger(child)).toMatchObject([{ status: "delivered", attempts: 1, payload: null }]);
    expect((await api("POST", `/${id}/retry`)).status).toBe(409);
    expect(faults.calls).toBe(6);
  });

  it("a settled record is kept 7 days, then pruned from the session and the index", async () => {
    const r = await requester("spawner", "ldg-prune");
    const { child } = await spawnOk(r, { task: "short-lived record", agentId: "worker" });
    await settleAll([r, child]);
    const [row] = await ledger(child);
    const id = row?.delivery_id ?? "";
    await driveUntil(
      [child],
      async () => ((await api("GET", `/${id}`)).status === 200 ? true : undefined),
      "indexed",
    );
    // An idle session's alarm comes back for it: due_work holds the pruning time.
    const due = await runInDurableObject(stub(child), (_instance, state) =>
      state.storage.sql.exec<{ due_at: number }>("SELECT due_at FROM due_work").toArray(),
    );
    expect(due.map((row) => row.due_at)).toContain((row?.updated_at ?? 0) + 7 * 24 * 60 * 60_000);
    // Six days on, whatever wakes the session (its alarm) keeps the record; past seven it is pruned.
    await agedBy(child, 6 * 24 * 60 * 60_000);
    expect(await ledger(child)).toHaveLength(1);
    await agedBy(child, 7 * 24 * 60 * 60_000 + 1);
    expect(await ledger(child)).toEqual([]);
    const listed = await api<Page>("GET", `?sessionKey=${enc(child)}`);
    expect(listed.json.deliveries).toEqual([]);
    expect((await api("GET", `/${id}`)).status).toBe(404);
    // The run keeps the record's last status: deliveryStatus outlives the record.
    const kept = await runInDurableObject(stub(child), (_instance, state) =>
      state.storage.sql.exec("SELECT completion FROM run").toArray(),
    );
    expect(kept).toEqual([{ completion: "delivered" }]);
  });

  it("fails at once when it can never succeed: nobody left to take a completion, a channel with no webhook", async () => {
    const { r, child } = await deferredChild("ldg-gone", "orphan");
    expect((await call("DELETE", `/v1/sessions/${enc(r)}`, { token: ADMIN })).status).toBe(200);
    await answerDeferred(child, "too late", [child]);
    expect(await ledger(child)).toMatchObject([
      {
        kind: "completion",
        status: "failed",
        attempts: 1,
        last_error: expect.stringContaining("no session left"),
      },
    ]);
    expect(await outboxSize(child)).toBe(0);

    // sms has no outbound webhook: the Queue's consumer reports a permanent failure.
    const sms = (await inboundSession("sms")).sessionKey;
    const [post] = await ledgerOnce(sms, (row) => row.status === "failed", "the post to fail");
    expect(post).toMatchObject({
      kind: "reply",
      target: expect.stringMatching(/^sms:/),
      last_error: 'channel "sms" has no webhookUrl configured',
    });
  });

  it("intentional silence is delivered: a NO_REPLY requester's announce is not required, never retried", async () => {
    const r = await requester("spawner", "ldg-silent", true);
    const { child, runId } = await spawnOk(r, {
      task: "a quiet job",
      agentId: "research",
      label: "nothing to tell",
    });
    await settleAll([r, child]);
    expect(await ledger(child)).toMatchObject([{ kind: "completion", run_id: runId, status: "delivered" }]);
    const [announce, ...more] = await ledger(r);
    expect(more).toEqual([]);
    expect(announce).toMatchObject({
      kind: "announce",
      status: "not_required",
      attempts: 0,
      last_error: "the run answered NO_REPLY",
    });
    expect(await outboxSize(r)).toBe(0);
    expect((await storedRuns(r)).map((run) => [run.status, run.reply])).toEqual([["ok", "NO_REPLY"]]);
    await expectOnlyPosts(r, []);
  });

  it("channel posts: each Queue attempt is reported, retried by the schedule; the dead-letter queue suspends", async () => {
    // slack's webhook (fake flaky/2) answers 500 to the first two posts of each idempotency key.
    const key = (await inboundSession("slack")).sessionKey;
    const [first] = await ledgerOnce(
      key,
      (row) => row.attempts === 1,
      "the Queue's first attempt to be reported",
    );
    expect(first).toMatchObject({
      kind: "reply",
      status: "in_progress",
      last_error: "channel webhook answered HTTP 500",
    });
    const waited = (first?.next_attempt_at ?? 0) - (first?.updated_at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(15_000);
    expect(waited).toBeLessThan(18_001);

    // The Queue's next attempts, as it would hand them over (the real one waits 15 s and more).
    const message = { ...JSON.parse(first?.payload ?? "{}"), deliveryId: first?.delivery_id };
    const second = await deliverBatch([{ id: "post-2", body: message, attempts: 2 }]);
    expect(second.retryMessages).toEqual([{ msgId: "post-2" }]);
    expect(second.delays["post-2"]).toBeGreaterThanOrEqual(30);
    expect(second.delays["post-2"]).toBeLessThanOrEqual(36);
    expect(await ledger(key)).toMatchObject([{ status: "in_progress", attempts: 2 }]);

    // The Queue gives up: its dead-letter consumer suspends the record, and acks.
    const dead = await deliverBatch(
      [{ id: "dead-1", body: { body: message, reason: "the queue gave up" } }],
      env,
      "switchboard-deliveries-dlq",
    );
    expect(dead.explicitAcks).toEqual(["dead-1"]);
    expect(await ledger(key)).toMatchObject([
      { status: "suspended", last_error: "the queue gave up", payload: expect.stringContaining("hello") },
    ]);
    const id = first?.delivery_id ?? "";

    // Only the operator and the session's own agent see the record; a run token uses no operator API.
    expect((await api("GET", `/${id}`, AGENT_TOKENS.research)).status).toBe(404);
    const theirs = await api<Page>("GET", "?status=suspended", AGENT_TOKENS.research);
    expect(theirs.json.deliveries.map((record) => record.deliveryId)).not.toContain(id);
    expect((await api("GET", `/${id}`, AGENT_TOKENS.main)).json).toMatchObject({ status: "suspended" });
    expect((await api("GET", "", await runToken({ sessionKey: key }))).status).toBe(403);
    expect((await api("GET", "?status=lost")).json).toMatchObject({
      error: { message: expect.stringContaining("status") },
    });
    expect((await api("GET", "?cursor=nope")).status).toBe(400);

    expect((await api("GET", "?sessionKey=nobody")).json).toMatchObject({
      error: { message: expect.stringMatching(/^sessionKey: /) },
    });
    // What has no record (a fire-and-forget send) is never acked by the dead-letter consumer: held back.
    const send = { type: "send_ref", targetKey: key, runId: crypto.randomUUID(), sourceKey: key };
    const held = await deliverBatch(
      [{ id: "dead-send", body: { body: send, reason: "target gone" } }],
      env,
      "switchboard-deliveries-dlq",
    );
    expect(held).toMatchObject({ explicitAcks: [], retryMessages: [{ msgId: "dead-send" }] });
    expect(held.delays["dead-send"]).toBe(12 * 60 * 60);

    // The operator's retry: a new series through the Queue; the channel's third post is answered 200.
    expect((await api("POST", `/${id}/retry`)).json).toMatchObject({ status: "pending", attempts: 0 });
    const posts = await driveUntil(
      [key],
      async () => ((await ledger(key))[0]?.status === "delivered" ? deliveries(key) : undefined),
      "the retried post",
    );
    expect(new Set(posts.map((post) => post.headers["idempotency-key"])).size).toBe(1);
  });

  it("a post the Queue went silent on for 15 minutes can be dismissed or retried; a fresh one cannot", async () => {
    const key = (await inboundSession("slack")).sessionKey;
    const [row] = await ledgerOnce(key, (row) => row.status === "in_progress", "the post to be on the Queue");
    const id = row?.delivery_id ?? "";
    expect((await api("POST", `/${id}/dismiss`)).status).toBe(409);
    await runInDurableObject(stub(key), (_instance, state) => {
      state.storage.sql.exec("UPDATE delivery SET updated_at = ?", Date.now() - 15 * 60_000 - 1);
    });
    expect((await api("POST", `/${id}/dismiss`)).json).toMatchObject({ deliveryId: id, status: "dismissed" });
  });
});
