import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentApi } from "../../../src/agent-object/client";
import { utcDay } from "../../../src/agent-object/spend";
import { addToOutbox } from "../../../src/session/store/outbox-store";
import {
  createSession,
  drive,
  evict,
  expectOnlyPosts,
  inbound,
  postInbound,
  runAlarms,
  sendMessage,
  session,
  stub,
  tool,
  uid,
  waitRun,
} from "../../support";

const DAY_MS = 86_400_000;
/** Noon (UTC) `daysAgo` days before today: each test counts on days of its own, in the past (alarms due). */
const noonDaysAgo = (daysAgo: number) => Math.floor(Date.now() / DAY_MS - daysAgo) * DAY_MS + DAY_MS / 2;

/** Sets the clock (Date only; timers stay real and it keeps ticking) to `at`. */
function clockAt(at: number): void {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(at);
}

/** The session's `budget` events. */
async function budgetEvents(key: string) {
  const answer = await session(key).changes(0);
  if (!answer.ok) throw new Error(answer.message);
  return answer.value.events.filter((event) => event.kind === "budget");
}

/** A "ping" from one telegram sender to agent `agentId`: its runId, waited for. */
async function pingFrom(sender: string, agentId: string) {
  const posted = await postInbound(
    "telegram",
    inbound({ agentId, chatId: sender, senderId: sender, text: "ping", messageId: `m-${uid()}` }),
  );
  expect(posted.status, posted.text).toBe(202);
  if (posted.json.status !== "accepted") throw new Error(posted.text);
  const ended = await waitRun(posted.json.runId);
  await drive([posted.json.sessionKey]);
  return ended;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("budgets (SPEC §20)", () => {
  it("a daily token cap reached stops the next run with one line, a budget event, the chat told once that day; the next UTC day runs again", async () => {
    // Today by the real clock: the fake channel checks a post's signature time against it.
    const today = Date.now();
    const sender = `77${uid()}`;
    const key = `agent:budget-tokens:telegram:direct:${sender}`;
    expect(await pingFrom(sender, "budget-tokens")).toMatchObject({ status: "ok", reply: "pong" });

    const line = "budget: agent budget-tokens has used 2 of its 2 daily tokens; runs resume at 00:00 UTC";
    const refused = await pingFrom(sender, "budget-tokens");
    expect(refused).toMatchObject({ status: "error", error: line });
    expect(refused.startedAt).toBeUndefined();
    // Refused again the same day: recorded, but the chat is not told twice.
    expect(await pingFrom(sender, "budget-tokens")).toMatchObject({ status: "error", error: line });
    expect((await budgetEvents(key)).map((event) => [event.summary, event.data])).toEqual([
      [line, { cause: "daily", agentId: "budget-tokens", chatTold: true }],
      [line, { cause: "daily", agentId: "budget-tokens", chatTold: false }],
    ]);
    // What the chat got: the reply, then the one line, once.
    await expectOnlyPosts(key, ["pong", line]);

    // 00:00:30 UTC the next day: a new day's spend, and the run goes ahead.
    const tomorrow = (Math.floor(today / DAY_MS) + 1) * DAY_MS;
    clockAt(tomorrow + 30_000);
    // An alarm set by this clock is a day away for the runtime: the rounds run it now, if a run waits on it.
    const nextDay = await sendMessage(key, "ping");
    await drive([key]);
    expect(await waitRun(nextDay)).toMatchObject({ status: "ok", reply: "pong" });
    await drive([key]);
    const agent = agentApi(env, "budget-tokens");
    expect(await agent.spend(utcDay(today))).toMatchObject({ tokens: 2, runs: 1 });
    expect(await agent.spend(utcDay(tomorrow))).toMatchObject({ tokens: 2, runs: 1 });
  });

  it("a cost cap counts each run's estimated cost from pricing; the wait answer says why, and the status card shows the day against the caps", async () => {
    clockAt(noonDaysAgo(3));
    const key = `agent:budget-cost:cap-${uid()}`;
    await createSession({ agentId: "budget-cost", key });
    const card = async () => (await tool("session_status", key)).statusText;
    expect(await card()).toContain("Budget: $0.00 / $2.00 today · 0 / 50,000 tokens");

    // One call of the `usage` model: 11 in, 7 out, $1.25 at this pricing. Two fit under $2.00.
    for (let run = 0; run < 2; run++) {
      expect(await waitRun(await sendMessage(key, `hello ${run}`))).toMatchObject({ status: "ok" });
      await drive([key]);
    }
    const line = "budget: agent budget-cost has spent $2.50 of its $2.00 daily cap; runs resume at 00:00 UTC";
    expect(await waitRun(await sendMessage(key, "once more"))).toMatchObject({
      status: "error",
      error: line,
    });
    expect(await budgetEvents(key)).toMatchObject([
      { summary: line, data: { cause: "daily", agentId: "budget-cost", chatTold: false } },
    ]);
    expect(await card()).toContain("Budget: $2.50 / $2.00 today · 36 / 50,000 tokens");
  });

  it("an agent without a budget shows no budget line", async () => {
    const key = `agent:main:nobudget-${uid()}`;
    await createSession({ agentId: "main", key });
    expect((await tool("session_status", key)).statusText).not.toContain("Budget:");
  });

  it("runsPerMinutePerSession: 2 refuses the third run within a minute, per session; a minute on, runs start again", async () => {
    const start = noonDaysAgo(4);
    clockAt(start);
    const key = `agent:budget-rate:rate-${uid()}`;
    await createSession({ agentId: "budget-rate", key });
    for (let run = 0; run < 2; run++)
      expect(await waitRun(await sendMessage(key, `run ${run}`))).toMatchObject({ status: "ok" });
    const refused = await waitRun(await sendMessage(key, "third"));
    expect(refused).toMatchObject({
      status: "error",
      error: expect.stringMatching(
        /^budget: agent budget-rate allows 2 runs a minute per session; the next can start in (59|60)s$/,
      ),
    });
    expect(await budgetEvents(key)).toMatchObject([{ data: { cause: "rate", chatTold: false } }]);
    // Another session of the same agent has a rate of its own.
    const other = `agent:budget-rate:rate-${uid()}`;
    await createSession({ agentId: "budget-rate", key: other });
    expect(await waitRun(await sendMessage(other, "first"))).toMatchObject({ status: "ok" });

    clockAt(start + 61_000);
    expect(await waitRun(await sendMessage(key, "fourth"))).toMatchObject({ status: "ok" });
  });

  it("a chat refused by the run rate is told once a minute, not once per message", async () => {
    const sender = `78${uid()}`;
    const key = `agent:budget-rate:telegram:direct:${sender}`;
    for (let run = 0; run < 2; run++)
      expect(await pingFrom(sender, "budget-rate")).toMatchObject({ status: "ok", reply: "ok" });
    const refused = await pingFrom(sender, "budget-rate");
    expect(refused.status).toBe("error");
    expect(await pingFrom(sender, "budget-rate")).toMatchObject({ status: "error" });
    expect((await budgetEvents(key)).map((event) => event.data?.chatTold)).toEqual([true, false]);
    await expectOnlyPosts(key, ["ok", "ok", refused.error ?? ""]);
  });

  it("a run's usage is counted once, even when its report is delivered again after an eviction", async () => {
    const day = noonDaysAgo(5);
    clockAt(day);
    const key = `agent:budget-cost:once-${uid()}`;
    await createSession({ agentId: "budget-cost", key });
    const runId = await sendMessage(key, "count me");
    expect(await waitRun(runId)).toMatchObject({ status: "ok" });
    await drive([key]);
    const agent = agentApi(env, "budget-cost");
    const once = { day: utcDay(day), tokens: 18, costUsd: 1.25, runs: 1 };
    expect(await agent.spend(utcDay(day))).toEqual(once);

    // The report owed again (as if the object went away after the agent object took it, before it was
    // settled), the session evicted, and its outbox delivering it again.
    await runInDurableObject(stub(key), async (_instance, state) => {
      addToOutbox(state.storage.sql, "agent_usage", `usage:${runId}`, {
        agentId: "budget-cost",
        runId,
        day: utcDay(day),
        tokens: 18,
        costUsd: 1.25,
      });
      // Not due yet, so the runtime does not fire it by itself meanwhile: this test runs it.
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runInDurableObject(stub(key), (_i, state) => countOutbox(state.storage.sql))).toBe(1);
    await evict(key);
    await runAlarms([key]);
    expect(await runInDurableObject(stub(key), (_i, state) => countOutbox(state.storage.sql))).toBe(0);
    expect(await agent.spend(utcDay(day))).toEqual(once);
  });
});

/** The session's pending `agent_usage` entries. */
function countOutbox(sql: SqlStorage): number {
  return Number(sql.exec("SELECT COUNT(*) AS n FROM outbox WHERE kind = 'agent_usage'").one().n);
}
