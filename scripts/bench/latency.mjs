// The critical path under a production latency model (issue 34 item 4): on a Worker whose bindings wait
// `BENCH_LATENCY` ms before each D1 round trip, Durable Object call and Queue send (counting.ts), each
// operation is timed with the model on and off, one sample of each in turn, and its p50 with the model
// on is set beside its floor: its p50 with the model off (the local work, which the model does not
// change) plus the model's delay for each hop it cannot avoid. What is not on the critical path must not
// wait on it, so each operation should come within 1.2× of that floor.
import { api, tool } from "./api.mjs";
import { historyKey } from "./history.mjs";
import { newTarget } from "./messaging.mjs";
import { ADMIN, TOKENS } from "./server.mjs";

/** The model the issue names: a distant D1 primary, same-colo objects, a nearby queue. */
export const DEFAULT_LATENCY = "d1:20,do:2,queue:5";
export const LATENCY_TARGET = 1.2;
const PAUSE_MS = 250;

/**
 * BENCH_LATENCY's value ("d1:20,do:2,queue:5", ms; a part left out is 0) as { d1, do, queue }; exits
 * the bench with a message naming the variable when it is malformed.
 */
export function latencyModel(text = process.env.BENCH_LATENCY ?? DEFAULT_LATENCY) {
  const model = { d1: 0, do: 0, queue: 0 };
  for (const part of text.split(",").map((p) => p.trim())) {
    const match = /^(d1|do|queue):(\d+(?:\.\d+)?)$/.exec(part);
    if (!match || Number(match[2]) > 1000) {
      console.error(
        `BENCH_LATENCY: "${text}" is not a latency model: give comma-separated d1:<ms>, do:<ms> and queue:<ms> (each 0–1000), e.g. ${DEFAULT_LATENCY}`,
      );
      process.exit(2);
    }
    model[match[1]] = Number(match[2]);
  }
  return model;
}

const expect = (result, test, what) => {
  if (!test(result)) throw new Error(`${what}: ${JSON.stringify(result).slice(0, 300)}`);
};

/** A chat turn's typing view: `POST …/messages` with `stream: true`, read to the run's end. */
async function streamedTurn(base, key, i) {
  const response = await fetch(`${base}/v1/sessions/${encodeURIComponent(key)}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify({ text: `latency probe ${i}`, stream: true }),
  });
  const text = await response.text();
  if (!response.ok || !text.includes("instant-ack"))
    throw new Error(`stream: ${response.status} ${text.slice(0, 200)}`);
}

/**
 * The operations: `hops` are the serial calls each cannot do without (what must precede its answer),
 * `why` says so for docs/benchmarks.md, `fresh` makes a session of its own for each sample (no sample
 * queues behind the last one's deferred work).
 */
export const LATENCY_OPERATIONS = [
  {
    name: "sessions_list (limit 50)",
    hops: { d1: 1 },
    why: "the page and its rows' children, one D1 batch (the index is the only place that knows every session)",
    run: (base) => tool(base, TOKENS.main, "sessions_list", { limit: 50 }),
  },
  {
    name: "sessions_history (limit 200)",
    hops: { do: 1 },
    why: "one call into the session's object, which pages its own SQLite and checks visibility on its own record",
    run: (base) => tool(base, TOKENS.main, "sessions_history", { sessionKey: historyKey(1_000), limit: 200 }),
  },
  {
    name: "session_status",
    hops: { do: 1 },
    why: "one call into the session's object (a session that never had children reads no counts)",
    run: (base) => tool(base, TOKENS.main, "session_status", { sessionKey: historyKey(1_000) }),
  },
  {
    name: "chat turn, streamed (POST …/messages stream: true, to the run's end)",
    hops: { do: 1 },
    why: "one call into the session's object, which runs the turn (the stand-in model answers at once) and streams it; the turn's index write comes after the answer",
    fresh: "chat",
    run: (base, i, key) => streamedTurn(base, key, i),
  },
  {
    name: "chat turn, POST …/messages then POST /v1/runs/{id}/wait",
    hops: { do: 2 },
    why: "the message into the object (1 DO); the wait names the run's session, as the client and CLI do, and waits in that object (1 DO: no index read; the turn's index write comes after the answer)",
    fresh: "chat",
    run: async (base, i, key) => {
      const sent = await api(base, "POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, ADMIN, {
        text: `latency probe ${i}`,
      });
      expect(sent, (r) => r.status === 202, "message");
      const waited = await api(base, "POST", `/v1/runs/${sent.json.runId}/wait`, ADMIN, {
        timeoutMs: 15_000,
        sessionKey: key,
      });
      expect(waited, (r) => r.status === 200 && r.json.status === "ok", "wait");
    },
  },
  {
    name: "sessions_send with a wait (instant, answered)",
    hops: { d1: 1, do: 1 },
    why: "the target's and the requester's index rows in one read (1 D1: visibility and the target's existence), then one call into the target's object that queues the turn and waits for its reply (1 DO); the reply step, the announce and the index writes come after the answer",
    fresh: "send",
    run: async (base, i, key) =>
      expect(
        await tool(base, TOKENS.main, "sessions_send", {
          sessionKey: key,
          message: `probe ${i}`,
          timeoutSeconds: 15,
        }),
        (r) => r.status === "ok",
        "send",
      ),
  },
  {
    name: "sessions_send fire-and-forget (accepted)",
    hops: { d1: 1, do: 1, queue: 1 },
    why: "the same one index read; the send recorded in the requester's object (1 DO: accepted means owed by its outbox, which sends it should the Queue send fail), then the Queue send (its delivery comes after the answer)",
    fresh: "accept-only",
    run: async (base, i, key) =>
      expect(
        await tool(base, TOKENS.main, "sessions_send", {
          sessionKey: key,
          message: `probe ${i}`,
          timeoutSeconds: 0,
        }),
        (r) => r.status === "accepted",
        "send",
      ),
  },
  {
    name: "sessions_spawn (accepted)",
    hops: { d1: 2, do: 1 },
    why: "the requester's live children (and its session id) from the index (1 D1: the maxChildrenPerAgent limit), then one call into the child's object that records it and queues its run (1 DO), which answers once the child's index row is written (1 D1: the next spawn's count must see this child, and a lookup by its run id must find it); the parent's record and the completion come after the answer",
    run: async (base, i) =>
      expect(
        await tool(base, TOKENS.main, "sessions_spawn", { task: `latency probe ${i}`, agentId: "research" }),
        (r) => r.status === "accepted",
        "spawn",
      ),
  },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const counts = async (base) => (await fetch(`${base}/bench/counts`)).json();
/** The D1 round trips, object calls and Queue sends between two counts. */
const callsBetween = (before, after) => ({
  d1: after.d1Calls - before.d1Calls,
  do: after.doCalls - before.doCalls,
  queue: after.queueMessages - before.queueMessages,
});
const setModel = async (base, on) => {
  const answer = await (await fetch(`${base}/bench/latency?on=${on ? 1 : 0}`)).json();
  if (answer.on !== on) throw new Error(`the latency model did not switch ${on ? "on" : "off"}`);
};

/** Each operation `samples` times with the model on and off, in turn: rows for report and targets. */
export async function latencyScenario(base, model, samples, log) {
  const rows = [];
  for (const operation of LATENCY_OPERATIONS) {
    const keys = operation.fresh
      ? await Promise.all(
          Array.from({ length: samples * 2 + 2 }, () =>
            newTarget(base, "instant", `latency-${operation.fresh}`),
          ),
        )
      : [];
    const times = { on: [], off: [] };
    const calls = [];
    // One warm-up each way, then the samples, alternating which mode goes first.
    for (let i = -1; i < samples; i++) {
      for (const on of i % 2 === 0 ? [true, false] : [false, true]) {
        await setModel(base, on);
        const key = keys.shift();
        const before = on ? await counts(base) : undefined;
        const t0 = performance.now();
        await operation.run(base, i, key);
        const ms = performance.now() - t0;
        if (i >= 0) times[on ? "on" : "off"].push(ms);
        if (before && i >= 0) calls.push(callsBetween(before, await counts(base)));
        await setModel(base, false);
        await sleep(PAUSE_MS);
      }
    }
    const modelled = Object.entries(operation.hops).reduce((sum, [part, n]) => sum + n * model[part], 0);
    const off = median(times.off);
    const on = median(times.on);
    const row = {
      name: `latency: ${operation.name}`,
      latency: true,
      hops: operation.hops,
      why: operation.why,
      modelled,
      // The calls made while the operation was answering (the median of each): those on its path, and
      // any deferred work that started before the answer.
      made: Object.fromEntries(
        ["d1", "do", "queue"].map((part) => [part, median(calls.map((c) => c[part]))]),
      ),
      off,
      on,
      floor: off + modelled,
      ratio: on / (off + modelled),
      samples,
    };
    log?.(
      `latency: ${operation.name}: ${on.toFixed(1)} ms on, ${off.toFixed(1)} off, floor ${row.floor.toFixed(1)} → ${row.ratio.toFixed(2)}×`,
    );
    rows.push(row);
  }
  return rows;
}
