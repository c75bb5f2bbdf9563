// Live streams (issue 12): how late an event reaches an open stream, what 100 open streams cost the
// session's turns, how soon a streamed reply's first delta follows the model's first chunk, and whether
// the Worker's memory stays flat across stream connects and disconnects. Each figure is a ratio to (or a
// difference from) a floor measured in the same run, interleaved with it where it can be.
import { api } from "./api.mjs";
import { THINK_MS } from "./model-server.mjs";
import { ADMIN, cpuMsOf, descendants, memoryOf } from "./server.mjs";
import { openStream, wallNow } from "./sse-client.mjs";

const sorted = (values) => [...values].sort((a, b) => a - b);
const pct = (values, p) => {
  const s = sorted(values);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const path = (key) => `/v1/sessions/${encodeURIComponent(key)}`;

async function createSession(base, key) {
  const created = await api(base, "POST", "/v1/sessions", ADMIN, { key });
  if (created.status !== 201)
    throw new Error(`create ${key}: ${created.status} ${JSON.stringify(created.json)}`);
}

/** Resolves with the first event `test` accepts, from a stream's listeners; rejects after `ms`. */
function waiter() {
  const pending = new Set();
  return {
    feed(event, arrivedAt) {
      for (const entry of pending)
        if (entry.test(event)) {
          pending.delete(entry);
          clearTimeout(entry.timer);
          entry.resolve({ event, arrivedAt });
        }
    },
    next(test, ms = 15_000) {
      return new Promise((resolve, reject) => {
        const entry = { test, resolve };
        entry.timer = setTimeout(() => {
          pending.delete(entry);
          reject(new Error(`no matching event within ${ms} ms`));
        }, ms);
        pending.add(entry);
      });
    },
  };
}

/** A bench route's round trip (ms). */
async function roundTrip(url) {
  const t0 = performance.now();
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  await response.arrayBuffer();
  return performance.now() - t0;
}

/**
 * 1. Event delay: one message imported at a time into a session with a live stream open; the delay runs
 * from the event's `occurredAt` (the object's clock when it wrote the row; same machine) to the event's
 * bytes reaching the client. Each sample is preceded by its floors: a bare DO ping round trip, and a bare
 * durable write's round trip (benchWrite: answered once committed, as every write of the service is).
 */
export async function eventDelayScenario(base, samples) {
  const key = "agent:main:api:stream-delay";
  await createSession(base, key);
  const events = waiter();
  const stream = await openStream(`${base}${path(key)}/events`, {
    token: ADMIN,
    onEvent: (event, at) => events.feed(event, at),
  });
  const figures = { delay: [], afterAnswer: [], ping: [], write: [], importTrip: [] };
  try {
    for (let i = 0; i < samples; i++) {
      figures.ping.push(await roundTrip(`${base}/bench/ping/${encodeURIComponent(key)}`));
      figures.write.push(await roundTrip(`${base}/bench/write/${encodeURIComponent(key)}`));
      const id = `delay-probe-${i}`;
      const seen = events.next((event) => event.event === "message" && event.json.data?.messageId === id);
      const message = { id, role: "user", content: `probe ${i}`, timestamp: Date.now() };
      const sentAt = wallNow();
      const imported = await api(base, "POST", `${path(key)}/transcript`, ADMIN, { messages: [message] });
      const answeredAt = wallNow();
      if (imported.status !== 200)
        throw new Error(`import: ${imported.status} ${JSON.stringify(imported.json)}`);
      const { event, arrivedAt } = await seen;
      figures.delay.push(arrivedAt - event.json.occurredAt);
      figures.afterAnswer.push(arrivedAt - answeredAt);
      figures.importTrip.push(answeredAt - sentAt);
    }
  } finally {
    stream.close();
  }
  const [p50, ping, write] = [figures.delay, figures.ping, figures.write].map((values) => pct(values, 50));
  return {
    name: `live stream: event delay, message committed → event at the client (${samples} messages)`,
    stream: "delay",
    figure:
      `p50 ${p50.toFixed(1)} ms, p90 ${pct(figures.delay, 90).toFixed(1)} ms; ` +
      `floors (round trips, p50): DO ping ${ping.toFixed(1)} ms (${(p50 - ping).toFixed(1)} ms above), ` +
      `durable write ${write.toFixed(1)} ms (${(p50 - write).toFixed(1)} ms above); ` +
      `the import's own round trip ${pct(figures.importTrip, 50).toFixed(1)} ms, and its event arrives ` +
      `${pct(figures.afterAnswer, 50).toFixed(1)} ms (p50) after its answer`,
    target: "p50 ≤ floor + 5 ms",
    met: p50 <= ping + 5,
  };
}

/** One turn against `instant`: chat.send, then `POST /v1/runs/{id}/wait`; resolves to its ms. */
async function turn(base, key, i) {
  const t0 = performance.now();
  const sent = await api(base, "POST", `${path(key)}/messages`, ADMIN, { text: `turn probe ${i}` });
  if (sent.status !== 202) throw new Error(`chat.send: ${sent.status} ${JSON.stringify(sent.json)}`);
  const waited = await api(base, "POST", `/v1/runs/${sent.json.runId}/wait`, ADMIN, { timeoutMs: 15_000 });
  if (waited.status !== 200 || waited.json.status === "timeout")
    throw new Error(`wait: ${waited.status} ${JSON.stringify(waited.json)}`);
  return performance.now() - t0;
}

/** CPU ms used so far by the Worker's runtime workerd, by the server process (Node: Miniflare), by this client. */
export function cpuNow({ serverPid, workerd }) {
  const others = [serverPid, ...descendants(serverPid)].filter((pid) => pid !== workerd);
  const { user, system } = process.cpuUsage();
  return {
    runtime: cpuMsOf(workerd),
    server: others.reduce((sum, pid) => sum + cpuMsOf(pid), 0),
    client: (user + system) / 1000,
  };
}

/**
 * 2. Turns of a session with `streams` live streams open on it vs none, in blocks of none / open / open /
 * none (drift on a shared machine cancels out). Every stream must see every turn's `run_completed`.
 * The CPU each process used per turn says where the difference goes.
 */
export async function fanOutScenario(base, samples, processes, streams = 100) {
  const key = "agent:instant:api:stream-fanout";
  await createSession(base, key);
  for (let i = 0; i < 3; i++) await turn(base, key, `warm-${i}`);
  const block = Math.max(2, Math.round(samples / 4));
  const timings = { none: [], open: [] };
  const cpu = { none: { runtime: 0, server: 0, client: 0 }, open: { runtime: 0, server: 0, client: 0 } };
  let missing = 0;
  for (const kind of ["none", "open", "open", "none"]) {
    const completed = new Array(kind === "open" ? streams : 0).fill(0);
    const open = await Promise.all(
      completed.map((_, s) =>
        openStream(`${base}${path(key)}/events`, {
          token: ADMIN,
          onEvent: (event) => {
            if (event.event === "run_completed") completed[s]++;
          },
        }),
      ),
    );
    const cpu0 = cpuNow(processes);
    for (let i = 0; i < block; i++) timings[kind].push(await turn(base, key, `${kind}-${i}`));
    const cpu1 = cpuNow(processes);
    for (const part of Object.keys(cpu0)) cpu[kind][part] += cpu1[part] - cpu0[part];
    await sleep(200);
    missing += completed.filter((count) => count !== block).length;
    for (const stream of open) stream.close();
  }
  const none = pct(timings.none, 50);
  const withStreams = pct(timings.open, 50);
  const ratio = withStreams / none;
  const perTurn = (kind) =>
    Object.entries(cpu[kind])
      .map(([part, ms]) => `${part} ${(ms / timings[kind].length).toFixed(0)}`)
      .join(", ");
  return {
    name: `live stream: turn latency with ${streams} streams open (${timings.open.length} + ${timings.none.length} turns)`,
    stream: "fanout",
    figure:
      `p50 ${withStreams.toFixed(1)} ms with ${streams} streams vs ${none.toFixed(1)} ms with none → ` +
      `${ratio.toFixed(2)}×; CPU ms per turn with streams: ${perTurn("open")}; with none: ${perTurn("none")}` +
      (missing
        ? `; **${missing} streams missed a run_completed**`
        : "; every stream saw every turn's run_completed"),
    target: "≤ 1.2× the turn with no stream",
    met: ratio <= 1.2 && missing === 0,
  };
}

/**
 * 3. `POST …/messages {stream: true}` to the openai `streamer` agent (model-server.mjs): request → first
 * `delta` event, client-side, vs the stand-in model's own arrival → first chunk (THINK_MS and a little).
 * The same wall clock on both sides splits the difference: before the model was called, and after its
 * first chunk was written.
 */
export async function firstDeltaScenario(base, model, samples) {
  const key = "agent:streamer:api:first-delta";
  await createSession(base, key);
  const figures = { client: [], model: [], before: [], after: [] };
  for (let i = -2; i < samples; i++) {
    const seenRequests = model.requests.length;
    let firstDelta;
    let completed = false;
    const t0 = wallNow();
    const stream = await openStream(`${base}${path(key)}/messages`, {
      method: "POST",
      token: ADMIN,
      body: { text: `first delta probe ${i}`, stream: true },
      onEvent: (event, at) => {
        if (event.event === "delta" && firstDelta === undefined) firstDelta = at;
        if (event.event === "run_completed") completed = true;
        if (event.event === "run_failed") throw new Error(`run failed: ${event.data}`);
      },
    });
    await stream.done;
    if (!completed || firstDelta === undefined) throw new Error("the reply stream ended without a delta");
    if (model.requests.length !== seenRequests + 1)
      throw new Error(`expected one model request per turn, saw ${model.requests.length - seenRequests}`);
    if (i < 0) continue; // warm-up
    const request = model.requests.at(-1);
    figures.client.push(firstDelta - t0);
    figures.model.push(request.firstChunkAt - request.arrivedAt);
    figures.before.push(request.arrivedAt - t0);
    figures.after.push(firstDelta - request.firstChunkAt);
  }
  const [client, modelP50, before, after] = ["client", "model", "before", "after"].map((name) =>
    pct(figures[name], 50),
  );
  const ratio = client / modelP50;
  return {
    name: `live stream: first delta of a streamed reply (${samples} replies)`,
    stream: "firstDelta",
    figure:
      `p50 ${client.toFixed(1)} ms (p90 ${pct(figures.client, 90).toFixed(1)}) vs the model's first chunk ` +
      `p50 ${modelP50.toFixed(1)} ms (${THINK_MS} ms think time) → ${ratio.toFixed(2)}×; p50s of what ` +
      `the service adds: request → model called ${before.toFixed(1)} ms, model's first chunk → delta at ` +
      `the client ${after.toFixed(1)} ms`,
    target: "≤ 1.2× the model's first-chunk time",
    met: ratio <= 1.2,
  };
}

/** One connect/disconnect: a stream from the start of the log, its first bytes read, then closed. */
async function connectCycle(base, key) {
  const abort = new AbortController();
  const response = await fetch(`${base}${path(key)}/events?after=0`, {
    headers: { Authorization: `Bearer ${ADMIN}` },
    signal: abort.signal,
  });
  if (!response.ok) throw new Error(`stream: ${response.status}`);
  const reader = response.body.getReader();
  await reader.read();
  await reader.cancel();
  abort.abort();
}

/** Longer than the streams' keep-alive (15 s): every disconnected reader has been written to, and let go. */
const KEEP_ALIVE_PAUSE_MS = 20_000;

/**
 * 4. workerd's RSS across `cycles` stream connects and disconnects (4 at a time) after a warm-up of
 * `warmup`, each sample after a 1 s settle: the figure of the target. The object notices a disconnect
 * only when it next writes to that stream (an event, or the keep-alive every 15 s), so the figure holds
 * every reader of the last 15 s; a second round after a pause past the keep-alive then says whether that
 * memory is reused (flat) or kept (a leak).
 */
export async function churnScenario(base, workerd, cycles = 1_000, warmup = 1_000) {
  const key = "agent:main:api:stream-churn";
  await createSession(base, key);
  await api(base, "POST", `${path(key)}/transcript`, ADMIN, {
    messages: [{ id: "churn-1", role: "user", content: "churn", timestamp: Date.now() }],
  });
  const run = async (count) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next++ < count) await connectCycle(base, key);
      }),
    );
  };
  const rss = () => memoryOf(workerd).rssMiB;
  await run(warmup);
  await sleep(1_000);
  const before = rss();
  const t0 = performance.now();
  await run(cycles);
  const seconds = (performance.now() - t0) / 1000;
  await sleep(1_000);
  const after = rss();
  await sleep(KEEP_ALIVE_PAUSE_MS);
  const paused = rss();
  await run(cycles);
  await sleep(KEEP_ALIVE_PAUSE_MS);
  const again = rss();
  const change = ((after - before) / before) * 100;
  const signed = (value) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;
  return {
    name: `live stream: workerd memory across ${cycles} stream connects/disconnects`,
    stream: "churn",
    figure:
      `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB (${signed(change)}) over ${cycles} cycles in ` +
      `${seconds.toFixed(1)} s, after ${warmup} warm-up cycles; ${KEEP_ALIVE_PAUSE_MS / 1000} s later ` +
      `${paused.toFixed(0)} MiB; after a second ${cycles} cycles and the same pause ${again.toFixed(0)} MiB ` +
      `(${signed(((again - paused) / paused) * 100)})`,
    target: "RSS within ±10%",
    met: Math.abs(change) <= 10,
  };
}
