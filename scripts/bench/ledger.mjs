// Completion delivery (issue 14): `count` sub-agent completions into one requester session, each
// delivered exactly once, and how long each took from the child's run end to the completion message in
// the requester's transcript, next to the floor of one session object calling another's bare RPC,
// measured in the same Worker process before and during the load.
import { loadavg } from "node:os";
import { api } from "./api.mjs";
import { ADMIN } from "./server.mjs";
import { cpuNow } from "./streams.mjs";

const REQUESTER = "agent:swarm:main";
// Two objects of their own for the floor, so that it is the platform's cost and nothing of the service's.
const FLOOR_CALLER = "agent:main:api:ledger-floor-a";
const FLOOR_CALLEE = "agent:main:api:ledger-floor-b";
/** Bare RPCs per floor sample: the runtime's clock moves in whole ms, so a call is timed as a share. */
const FLOOR_CALLS = 50;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pct = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : "–");

/** One floor sample: the object-to-object RPC (timed in the caller, per call) and the client's DO ping. */
async function floorSample(base) {
  const peer = await fetch(
    `${base}/bench/ping-peer/${encodeURIComponent(FLOOR_CALLER)}/${encodeURIComponent(FLOOR_CALLEE)}?calls=${FLOOR_CALLS}`,
  );
  if (!peer.ok) throw new Error(`ping-peer: ${peer.status}`);
  const { ms: total, calls } = await peer.json();
  const t0 = performance.now();
  const ping = await fetch(`${base}/bench/ping/${encodeURIComponent(FLOOR_CALLER)}`);
  if (!ping.ok) throw new Error(`ping: ${ping.status}`);
  await ping.arrayBuffer();
  return { rpc: total / calls, ping: performance.now() - t0 };
}

/** Floor samples every `pauseMs` until `stop()`; `stop` resolves to the samples. */
function floorSampler(base, pauseMs) {
  const samples = [];
  let running = true;
  const done = (async () => {
    while (running) {
      samples.push(await floorSample(base));
      await sleep(pauseMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return samples;
    },
  };
}

function summary(samples, field) {
  const values = samples.map((sample) => sample[field]);
  return { p50: pct(values, 50), p95: pct(values, 95), count: values.length };
}

/** A sessions_spawn by the requester (the operator naming it); forbidden while its children are all live. */
async function spawn(base, i) {
  const response = await fetch(`${base}/v1/tools/sessions_spawn`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Authorization: `Bearer ${ADMIN}`,
      "X-Switchboard-Session": REQUESTER,
    },
    body: JSON.stringify({ task: `ledger probe ${i}`, agentId: "instant" }),
  });
  const json = await response.json().catch(() => undefined);
  if (response.status !== 200) throw new Error(`spawn ${i}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const atLimit = (spawned) =>
  spawned.status === "forbidden" && String(spawned.error).includes("maxChildrenPerAgent");

/** The requester's transcript (the JSONL export): every completion message, by the child run it names. */
async function completionsInTranscript(base) {
  const response = await fetch(`${base}/v1/sessions/${encodeURIComponent(REQUESTER)}/transcript.jsonl`, {
    headers: { Authorization: `Bearer ${ADMIN}` },
  });
  if (!response.ok) throw new Error(`export: ${response.status}`);
  const found = [];
  let lines = 0;
  for (const line of (await response.text()).split("\n")) {
    if (!line) continue;
    lines++;
    const message = JSON.parse(line);
    const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
    if (!text.startsWith("[Sub-agent completion]")) continue;
    // SPEC §5.4's completion text names the child's run: `… runId=<id>` on its second line.
    const runId = /runId=([\w-]+)/.exec(text)?.[1];
    found.push({ runId, timestamp: message.timestamp });
  }
  return { found, lines };
}

/**
 * Spawns `count` instant sub-agents from the requester, `window` live at a time (each worker spawns,
 * then waits for its child's run with `POST /v1/runs/{id}/wait`, whose answer carries `endedAt`; a spawn
 * refused because every slot is still counted live is retried shortly). Then reads the requester's
 * transcript until it stops growing, and counts the completions per child run.
 */
export async function handoffScenario(base, { count, window, processes, log }) {
  const created = await api(base, "POST", "/v1/sessions", ADMIN, { key: REQUESTER });
  if (created.status !== 201) throw new Error(`create ${REQUESTER}: ${created.status}`);
  for (let i = 0; i < 20; i++) await floorSample(base);
  const idle = [];
  for (let i = 0; i < 100; i++) idle.push(await floorSample(base));
  log(
    `ledger: idle floor p50 DO→DO RPC ${ms(summary(idle, "rpc").p50)} ms, client DO ping ${ms(summary(idle, "ping").p50)} ms; spawning ${count} sub-agents, ${window} live at a time`,
  );

  const loadBefore = loadavg()[0];
  const cpu0 = cpuNow(processes);
  const ended = new Map();
  let next = 0;
  let refused = 0;
  let failedRuns = 0;
  const t0 = performance.now();
  const sampler = floorSampler(base, 20);
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < count) {
        const i = next++;
        let spawned = await spawn(base, i);
        while (atLimit(spawned)) {
          refused++;
          await sleep(10);
          spawned = await spawn(base, i);
        }
        if (spawned.status !== "accepted" || !spawned.runId)
          throw new Error(`spawn ${i}: ${JSON.stringify(spawned)}`);
        const waited = await api(base, "POST", `/v1/runs/${spawned.runId}/wait`, ADMIN, {
          timeoutMs: 60_000,
        });
        if (waited.status !== 200 || waited.json.endedAt === undefined)
          throw new Error(`wait ${spawned.runId}: ${waited.status} ${JSON.stringify(waited.json)}`);
        if (waited.json.status !== "ok") failedRuns++;
        ended.set(spawned.runId, waited.json.endedAt);
        if (ended.size % 100 === 0)
          log(
            `ledger: ${ended.size}/${count} child runs ended (${(ended.size / ((performance.now() - t0) / 1000)).toFixed(0)}/s)`,
          );
      }
    }),
  );
  const spawnSeconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuNow(processes);
  const cpu = Object.entries(cpu1)
    .map(([part, used]) => `${part} ${((used - cpu0[part]) / count).toFixed(1)}`)
    .join(", ");

  // Settled: every child's completion has had its chance, and the transcript stopped growing (the
  // requester's own turns done too); a completion delivered twice would show up here.
  let read = await completionsInTranscript(base);
  for (let tries = 0; tries < 60; tries++) {
    await sleep(1000);
    const again = await completionsInTranscript(base);
    const settled = again.lines === read.lines && again.found.length >= count;
    read = again;
    if (settled) break;
  }
  const during = await sampler.stop();
  const settledSeconds = (performance.now() - t0) / 1000;

  const seen = new Map();
  for (const { runId, timestamp } of read.found) seen.set(runId, [...(seen.get(runId) ?? []), timestamp]);
  const duplicates = [...seen.values()].filter((stamps) => stamps.length > 1).length;
  const missing = [...ended.keys()].filter((runId) => !seen.has(runId)).length;
  const strangers = [...seen.keys()].filter((runId) => !ended.has(runId)).length;
  const handoffs = [...ended].flatMap(([runId, endedAt]) =>
    seen.has(runId) ? [seen.get(runId)[0] - endedAt] : [],
  );
  const handoff = {
    p50: pct(handoffs, 50),
    p90: pct(handoffs, 90),
    p95: pct(handoffs, 95),
    p99: pct(handoffs, 99),
    max: Math.max(...handoffs),
  };
  const floor = { idle: summary(idle, "rpc"), load: summary(during, "rpc") };
  const ping = { idle: summary(idle, "ping"), load: summary(during, "ping") };
  const ratio = handoff.p50 / floor.load.p50;
  const exactlyOnce =
    ended.size === count && duplicates === 0 && missing === 0 && strangers === 0 && failedRuns === 0;
  return {
    name: `ledger: ${count} completions into one requester, ${window} children live at a time`,
    ledger: "handoff",
    target: "all delivered exactly once, p50 handoff ≤ 3× the DO-to-DO RPC floor",
    met: exactlyOnce && ratio <= 3,
    figure:
      `${read.found.length} completion messages for ${ended.size} child runs (${failedRuns} not ok): ` +
      `${duplicates} duplicated, ${missing} missing, ${strangers} unknown; ` +
      `handoff (child run's endedAt → completion's timestamp in the requester) p50 ${ms(handoff.p50)} ms, ` +
      `p90 ${ms(handoff.p90)}, p95 ${ms(handoff.p95)}, p99 ${ms(handoff.p99)}, max ${ms(handoff.max)}; ` +
      `DO-to-DO RPC p50 ${ms(floor.load.p50)} ms during the load (${floor.load.count} samples; ${ms(floor.idle.p50)} ms idle) → ` +
      `${ratio.toFixed(1)}× (${(handoff.p50 / floor.idle.p50).toFixed(1)}× the idle floor); ` +
      `the client's DO ping round trip p50 ${ms(ping.load.p50)} ms during the load (${ms(ping.idle.p50)} ms idle); ` +
      `all child runs ended in ${spawnSeconds.toFixed(1)} s (${(count / spawnSeconds).toFixed(1)} completions/s; ` +
      `CPU ms per completion: ${cpu}), ` +
      `settled at ${settledSeconds.toFixed(1)} s; ${refused} spawns refused at the limit and retried; ` +
      `the machine's 1-minute load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`,
    handoff,
    floor,
    ping,
  };
}
