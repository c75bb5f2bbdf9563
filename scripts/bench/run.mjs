#!/usr/bin/env node
// `npm run bench` (issue 6): starts the Worker locally, seeds it, measures every scenario next to the
// baselines of the same run, prints a table and rewrites docs/benchmarks.md. BENCH_SCALE=small for a
// quick run; BENCH_ONLY=streams runs the live-stream group alone and rewrites only its section of the
// report, BENCH_ONLY=ledger the completion-delivery group, BENCH_ONLY=search the transcript search group,
// BENCH_ONLY=send the fire-and-forget throughput group (issue 16), BENCH_ONLY=costs the costs per
// operation (docs/scaling.md), BENCH_ONLY=storage those costs with D1's bytes per indexed session and per
// searchable message measured again (the large seeds alone), BENCH_ONLY=soak the storage soak (issue 33:
// bytes per chat over time, with retention on and off), BENCH_ONLY=latency the critical path under a
// production latency model (issue 34: BENCH_LATENCY=d1:20,do:2,queue:5, the default, in ms),
// BENCH_ONLY=core the first two phases, printed only. BENCH_OPENCLAW=1 adds the side-by-side run against
// the real OpenClaw gateway (openclaw.mjs), which BENCH_ONLY=openclaw runs alone. Not part of `npm test`
// or CI.
import { rmSync } from "node:fs";
import { api, ok } from "./api.mjs";
import { costsScenario } from "./costs.mjs";
import { writeCostsSection } from "./costs-report.mjs";
import { exportScenario, historyKey, historyScenario, memoryScenario, readsScenario } from "./history.mjs";
import { latencyModel, latencyScenario } from "./latency.mjs";
import { writeLatencySection } from "./latency-report.mjs";
import { handoffScenario } from "./ledger.mjs";
import { writeLedgerSection } from "./ledger-report.mjs";
import { cursorAt, listScenario, waitForIndex } from "./list.mjs";
import { measure } from "./measure.mjs";
import { deliveryScenario, sendLoadScenario, spawnScenario, waitScenario } from "./messaging.mjs";
import { startModelServer } from "./model-server.mjs";
import { phaseOpenClaw } from "./openclaw.mjs";
import { printOpenClawTable, writeOpenClawSection } from "./openclaw-report.mjs";
import { printTable, writeReport } from "./report.mjs";
import {
  importSearchHits,
  printSearchTargets,
  searchScenario,
  seedSearchIndex,
  writeSearchSection,
} from "./search.mjs";
import { createSessions, importTranscript, seedIndex, waitForSearchIndex } from "./seed.mjs";
import { writeSendSection } from "./send-report.mjs";
import {
  cpuMsOf,
  d1BytesOf,
  migrate,
  SWARM_CHILDREN,
  startBareWorker,
  startWorker,
  TOKENS,
  workerdPid,
} from "./server.mjs";
import { SOAK_RETENTION, soakScenario } from "./soak.mjs";
import { writeSoakSection } from "./soak-report.mjs";
import { writeStreamsSection } from "./stream-report.mjs";
import { churnScenario, eventDelayScenario, fanOutScenario, firstDeltaScenario } from "./streams.mjs";

const SCALES = {
  small: {
    sessions: 200,
    largeSessions: 5_000,
    history: [1_000, 10_000],
    exportSize: 2_000,
    durationMs: 700,
    reps: 3,
    samples: 6,
    streamSamples: 20,
    churnCycles: 300,
    completions: 200,
    searchSizes: [1_000, 100_000],
    openclawRounds: 40,
    openclawSends: 8,
    latencySamples: 7,
  },
  full: {
    sessions: 200,
    largeSessions: 100_000,
    history: [1_000, 100_000],
    exportSize: 10_000,
    durationMs: 2000,
    reps: 3,
    samples: 15,
    streamSamples: 50,
    churnCycles: 1_000,
    completions: 1_000,
    searchSizes: [1_000, 1_000_000],
    openclawRounds: 200,
    openclawSends: 30,
    latencySamples: 15,
  },
};
const scaleName = process.env.BENCH_SCALE === "small" ? "small" : "full";
const scale = SCALES[scaleName];
const STATE_DIR = ".wrangler/bench-state";
// Each operation of the costs phase runs this many times; its counts are divided by it.
const COST_TIMES = 5;
const latency = { concurrency: 1, warmupMs: 300, durationMs: scale.durationMs, reps: scale.reps };
const load = { ...latency, concurrency: 8 };
const started = Date.now();
// Checked first: a malformed BENCH_LATENCY stops the bench before anything runs.
const LATENCY = latencyModel();
const latencyRun = () => ({
  latency: LATENCY,
  latencyText: process.env.BENCH_LATENCY ?? "d1:20,do:2,queue:5",
  date: new Date().toISOString(),
});
const log = (text) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${text}`);

async function baselines(base, tag) {
  const key = "agent:main:api:ping";
  const get = (path, options) => measure(() => ok(fetch(`${base}${path}`)), options);
  return [
    { name: `baseline: GET /healthz${tag}`, baseline: "healthz", timing: await get("/healthz", latency) },
    { name: `baseline: GET /healthz c=8${tag}`, baseline: "healthz8", timing: await get("/healthz", load) },
    { name: `baseline: DO ping${tag}`, baseline: "ping", timing: await get(`/bench/ping/${key}`, latency) },
    { name: `baseline: D1 SELECT 1${tag}`, baseline: "d1", timing: await get("/bench/d1", latency) },
    // The tool pipeline alone (auth, body, validation, routing, the answer): a tool that reads no storage.
    {
      name: `baseline: agents_list, a tool call with no storage${tag}`,
      baseline: "tool",
      timing: await measure(
        () =>
          ok(
            fetch(`${base}/v1/tools/agents_list`, {
              method: "POST",
              headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKENS.main}` },
              body: "{}",
            }),
          ),
        latency,
      ),
    },
  ];
}

/** Runs one scenario; a failure is logged and recorded, and the bench goes on to the next. */
async function step(results, label, scenario) {
  log(label);
  try {
    const rows = await scenario();
    results.push(...(Array.isArray(rows) ? rows : [rows]));
  } catch (error) {
    log(`${label} failed: ${error.message}`);
    results.push({ name: label, failed: error.message });
  }
}

/** A bare Miniflare Worker's "ok", in a process of its own: the floor under the local server's /healthz. */
async function bareBaseline() {
  const bare = await startBareWorker();
  try {
    const timing = await measure(() => ok(fetch(`${bare.base}/`)), latency);
    return { name: "baseline: bare Miniflare no-op Worker", baseline: "bare", timing };
  } finally {
    await bare.stop();
  }
}

async function phaseOne(results) {
  const worker = await startWorker(STATE_DIR);
  const { base } = worker;
  const few = Math.max(3, Math.floor(scale.samples / 3));
  try {
    log(`worker up on ${base}; seeding ${scale.sessions} sessions through the API`);
    await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
    await createSessions(base, scale.sessions - 1);
    await waitForIndex(base, scale.sessions);
    await step(results, "baselines", () => baselines(base, ""));
    // Between the server's own baselines and its first scenario, so both run on the same warm machine.
    await step(results, "bare Miniflare baseline", bareBaseline);
    await step(results, `sessions_list @${scale.sessions}`, async () =>
      listScenario(base, scale.sessions, await cursorAt(base, scale.sessions / 2), latency),
    );
    await step(results, `sessions_history @${scale.history.join(", @")} (imported in batches of 5,000)`, () =>
      historyScenario(base, scale.history, latency),
    );
    const workerd = workerdPid(worker.pid);
    await step(results, "memory while paging the large transcript", () =>
      memoryScenario(base, scale.history.at(-1), workerd),
    );
    await step(results, `JSONL export @${scale.exportSize}`, () =>
      exportScenario(base, scale.exportSize, few),
    );
    await step(results, "sessions_send wait", () => waitScenario(base, scale.samples));
    await step(results, "sessions_spawn", () => spawnScenario(base, few));
    await step(results, "sessions_send delivery", () => deliveryScenario(base, scale.samples));
  } finally {
    await worker.stop();
  }
}

/**
 * Seeds `count` index rows into D1 directly and records what D1's files grew by per row (a storage row);
 * returns the seeded rows' maker.
 */
function seedIndexRows(stateDir, count, results) {
  log(`seeding ${count} index rows into D1 directly (wrangler d1 execute --local --file)`);
  const t0 = Date.now();
  const bytesBefore = d1BytesOf(stateDir);
  const row = seedIndex(stateDir, count, Date.now());
  log(`seeded in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  results.push({
    name: "storage: D1 bytes per indexed session",
    storage: true,
    bytesPer: (d1BytesOf(stateDir) - bytesBefore) / count,
    count,
  });
  return row;
}

/** Grows the search index from `from` to `to` messages and records what D1's files grew by per message. */
function growSearchIndex(stateDir, from, to, results) {
  log(`search: growing the index to ${to} messages`);
  const bytesBefore = d1BytesOf(stateDir);
  seedSearchIndex(stateDir, from, to, log);
  results.push({
    name: "storage: D1 bytes per searchable message",
    storage: true,
    bytesPer: (d1BytesOf(stateDir) - bytesBefore) / (to - from),
    count: to - from,
  });
}

/**
 * D1's bytes per indexed session and per searchable message alone (docs/scaling.md's storage lines): the
 * seeds of the large index phase and of the search phase, each on fresh state of its own, without the
 * scenarios run over them. Only with BENCH_ONLY=storage.
 */
function phaseStorage(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 12 }))) };
  const indexDir = `${STATE_DIR}-storage`;
  const searchDir = `${STATE_DIR}-storage-search`;
  for (const dir of [indexDir, searchDir]) {
    rmSync(dir, { recursive: true, force: true });
    migrate(dir);
  }
  seedIndexRows(indexDir, scale.largeSessions, results);
  let indexed = 0;
  for (const size of scale.searchSizes) {
    growSearchIndex(searchDir, indexed, size, results);
    indexed = size;
  }
}

async function phaseTwo(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 2 }))) };
  const row = seedIndexRows(STATE_DIR, scale.largeSessions, results);
  const worker = await startWorker(STATE_DIR);
  const { base } = worker;
  try {
    const tag = ` (${scale.largeSessions} sessions run)`;
    await step(results, "baselines", () => baselines(base, tag));
    const deep = row(Math.floor(scale.largeSessions / 2));
    // Seeded rows have distinct updatedAt values, so tie-break 0 means "just past this row".
    const cursor = { updatedAt: deep.updatedAt, tiebreak: 0 };
    await step(results, `sessions_list @${scale.largeSessions}`, () =>
      listScenario(base, scale.largeSessions, cursor, latency),
    );
    // The first phase's transcripts are still there (same state): the same reads over the large index.
    const size = scale.history[0];
    await step(results, `sessions_history and session_status @${size}${tag}`, () =>
      readsScenario(base, historyKey(size), size, latency, tag),
    );
    // Last: every accepted send leaves a run and its ping-pong turns behind.
    await step(results, "sessions_send fire-and-forget load", () => sendLoadScenario(base, load));
  } finally {
    await worker.stop();
  }
}

/** Live streams (issue 12), on a Worker of their own whose `streamer` agent talks to the stand-in model. */
async function phaseStreams(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 3 }))) };
  const stateDir = `${STATE_DIR}-streams`;
  rmSync(stateDir, { recursive: true, force: true });
  migrate(stateDir);
  const model = await startModelServer();
  const worker = await startWorker(stateDir, {}, { modelUrl: model.baseUrl });
  const { base } = worker;
  try {
    const samples = scale.streamSamples;
    await step(results, "baselines", () => baselines(base, " (streams run)"));
    await step(results, "live stream: event delay", () => eventDelayScenario(base, samples));
    const processes = { serverPid: worker.pid, workerd: workerdPid(worker.pid) };
    await step(results, "live stream: 100 streams during turns", () =>
      fanOutScenario(base, samples, processes),
    );
    await step(results, "live stream: first delta", () =>
      firstDeltaScenario(base, model, Math.ceil(samples / 2)),
    );
    await step(results, "live stream: memory across connects", () =>
      churnScenario(base, processes.workerd, scale.churnCycles),
    );
  } finally {
    await worker.stop();
    await model.close();
  }
}

/** Completion delivery (issue 14), on a Worker of its own whose `swarm` agent is the requester. */
async function phaseLedger(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 4 }))) };
  const stateDir = `${STATE_DIR}-ledger`;
  rmSync(stateDir, { recursive: true, force: true });
  migrate(stateDir);
  const worker = await startWorker(stateDir, {}, { swarm: true });
  try {
    const processes = { serverPid: worker.pid, workerd: workerdPid(worker.pid) };
    await step(results, `ledger: ${scale.completions} completions into one requester`, () =>
      handoffScenario(worker.base, { count: scale.completions, window: SWARM_CHILDREN, processes, log }),
    );
  } finally {
    await worker.stop();
  }
}

/** Fire-and-forget throughput (issue 16) on a Worker of its own: a few hundred sessions, no other load. */
async function phaseSend(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 7 }))) };
  const stateDir = `${STATE_DIR}-send`;
  rmSync(stateDir, { recursive: true, force: true });
  migrate(stateDir);
  const worker = await startWorker(stateDir);
  const { base } = worker;
  try {
    await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
    await createSessions(base, scale.sessions - 1);
    await waitForIndex(base, scale.sessions);
    await step(results, "baselines", () => baselines(base, " (send run)"));
    await step(results, "sessions_send fire-and-forget load", () => sendLoadScenario(base, load));
  } finally {
    await worker.stop();
  }
}

/**
 * What each operation costs the platform (docs/scaling.md), on a Worker of its own whose bindings are
 * counted (counting.ts); untimed.
 */
async function phaseCosts(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 10 }))) };
  const stateDir = `${STATE_DIR}-costs`;
  rmSync(stateDir, { recursive: true, force: true });
  migrate(stateDir);
  const worker = await startWorker(stateDir, { count: true });
  try {
    await api(worker.base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
    await createSessions(worker.base, scale.sessions - 1);
    await importTranscript(worker.base, historyKey(1_000), 1_000);
    await waitForSearchIndex(worker.base, historyKey(1_000));
    await waitForIndex(worker.base, scale.sessions);
    const workerd = workerdPid(worker.pid);
    await step(results, "costs per operation", () =>
      costsScenario(worker.base, COST_TIMES, log, () => cpuMsOf(workerd)),
    );
  } finally {
    await worker.stop();
  }
}

/**
 * The critical path under the latency model (issue 34, latency.mjs), on a Worker of its own whose
 * bindings wait the model's delays while the bench switches it on.
 */
async function phaseLatency(all) {
  const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 11 }))) };
  const stateDir = `${STATE_DIR}-latency`;
  rmSync(stateDir, { recursive: true, force: true });
  migrate(stateDir);
  const worker = await startWorker(stateDir, { latency: LATENCY });
  try {
    await api(worker.base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
    await createSessions(worker.base, 59);
    await importTranscript(worker.base, historyKey(1_000), 1_000);
    await waitForIndex(worker.base, 60);
    await step(results, "latency model", () =>
      latencyScenario(worker.base, LATENCY, scale.latencySamples, log),
    );
  } finally {
    await worker.stop();
  }
}

/** Transcript search (issue 13): one Worker per index size (a phase each), the index grown in between. */
async function phaseSearch(all) {
  const stateDir = `${STATE_DIR}-search`;
  rmSync(stateDir, { recursive: true, force: true });
  migrate(stateDir);
  let indexed = 0;
  for (const [index, size] of scale.searchSizes.entries()) {
    const results = { push: (...rows) => all.push(...rows.map((row) => ({ ...row, phase: 5 + index }))) };
    growSearchIndex(stateDir, indexed, size, results);
    indexed = size;
    const worker = await startWorker(stateDir);
    try {
      if (size === scale.searchSizes[0]) await importSearchHits(worker.base);
      await step(results, "baselines", () => baselines(worker.base, ` (search @${size})`));
      await step(results, `search @${size}`, () => searchScenario(worker.base, size, latency));
    } finally {
      await worker.stop();
    }
  }
}

/**
 * The storage soak (issue 33, soak.mjs): the same chat load with retention on, then off, each on a Worker
 * of its own over fresh state; rewrites its section of docs/benchmarks.md. Only with BENCH_ONLY=soak.
 */
async function phaseSoak() {
  const meta = {
    chats: Number(process.env.BENCH_SOAK_CHATS ?? 16),
    seconds: Number(process.env.BENCH_SOAK_SECONDS ?? 150),
    sampleSeconds: 15,
    retention: SOAK_RETENTION,
    date: new Date().toISOString(),
  };
  const runs = [];
  for (const [label, maintenance] of [
    ["retention on", SOAK_RETENTION],
    ["retention off", undefined],
  ]) {
    const stateDir = `${STATE_DIR}-soak`;
    rmSync(stateDir, { recursive: true, force: true });
    migrate(stateDir);
    const worker = await startWorker(stateDir, {}, { soak: { maintenance } });
    try {
      log(`soak, ${label}: ${meta.chats} chats for ${meta.seconds} s`);
      const run = await soakScenario(worker.base, {
        chats: meta.chats,
        seconds: meta.seconds,
        sampleMs: meta.sampleSeconds * 1000,
        stateDir,
        log,
      });
      runs.push({ label, ...run });
    } finally {
      await worker.stop();
    }
  }
  writeSoakSection(runs, meta);
}

async function main() {
  const results = [];
  if (process.env.BENCH_ONLY === "soak") {
    await phaseSoak();
    log("docs/benchmarks.md: the storage soak section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "openclaw") {
    const openclaw = await phaseOpenClaw(results, { stateDir: `${STATE_DIR}-openclaw`, scale, log });
    printOpenClawTable(results);
    writeOpenClawSection(results, { scale: scaleName, ...scale, date: new Date().toISOString(), openclaw });
    log("docs/benchmarks.md: the OpenClaw comparison section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "send") {
    await phaseSend(results);
    printTable(results);
    writeSendSection(results, { scale: scaleName, ...scale, date: new Date().toISOString() });
    log("docs/benchmarks.md: the fire-and-forget section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "search") {
    await phaseSearch(results);
    printTable(results);
    printSearchTargets(results);
    writeSearchSection(results, { scale: scaleName, ...scale, date: new Date().toISOString() });
    log("docs/benchmarks.md: the transcript search section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "ledger") {
    await phaseLedger(results);
    printTable(results);
    writeLedgerSection(results, { scale: scaleName, ...scale, date: new Date().toISOString() });
    log("docs/benchmarks.md: the completion delivery section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "costs") {
    await phaseCosts(results);
    writeCostsSection(results, { times: COST_TIMES, date: new Date().toISOString() });
    log("docs/scaling.md: the costs section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "storage") {
    phaseStorage(results);
    // The reference load's figures take the chat turn's counts: measured again beside the bytes.
    await phaseCosts(results);
    writeCostsSection(results, { times: COST_TIMES, date: new Date().toISOString() });
    log("docs/scaling.md: the costs section rewritten, with the storage lines");
    return;
  }
  if (process.env.BENCH_ONLY === "latency") {
    await phaseLatency(results);
    writeLatencySection(results, latencyRun());
    log("docs/benchmarks.md: the latency model section rewritten");
    return;
  }
  if (process.env.BENCH_ONLY === "streams") {
    await phaseStreams(results);
    printTable(results);
    writeStreamsSection(results, { scale: scaleName, ...scale, date: new Date().toISOString() });
    log("docs/benchmarks.md: the live streams section rewritten");
    return;
  }
  rmSync(STATE_DIR, { recursive: true, force: true });
  rmSync(`${STATE_DIR}-sql`, { recursive: true, force: true });
  migrate(STATE_DIR);
  await phaseOne(results);
  // The first phase's figures are still reported when the large index cannot be seeded.
  await phaseTwo(results).catch((error) => {
    log(`large index phase failed: ${error.message}`);
    results.push({ name: `large index phase (${scale.largeSessions} sessions)`, failed: error.message });
  });
  // BENCH_ONLY=core: the first two phases, printed only (a quick look; the report keeps its last full run).
  if (process.env.BENCH_ONLY === "core") {
    printTable(results);
    return;
  }
  await phaseStreams(results).catch((error) => {
    log(`live streams phase failed: ${error.message}`);
    results.push({ name: "live streams phase", failed: error.message });
  });
  await phaseLedger(results).catch((error) => {
    log(`completion delivery phase failed: ${error.message}`);
    results.push({ name: "ledger: completion delivery phase", failed: error.message });
  });
  await phaseSearch(results).catch((error) => {
    log(`transcript search phase failed: ${error.message}`);
    results.push({ name: "search: transcript search phase", failed: error.message });
  });
  await phaseCosts(results).catch((error) => {
    log(`costs phase failed: ${error.message}`);
    results.push({ name: "costs phase", failed: error.message });
  });
  writeCostsSection(results, { times: COST_TIMES, date: new Date().toISOString() });
  await phaseLatency(results).catch((error) => {
    log(`latency model phase failed: ${error.message}`);
    results.push({ name: "latency model phase", failed: error.message });
  });
  const openclaw =
    process.env.BENCH_OPENCLAW === "1"
      ? await phaseOpenClaw(results, { stateDir: `${STATE_DIR}-openclaw`, scale, log })
      : undefined;
  printTable(results);
  printSearchTargets(results);
  if (openclaw || results.some((row) => row.name === "openclaw comparison")) printOpenClawTable(results);
  writeReport(results, {
    scale: scaleName,
    ...scale,
    ...latencyRun(),
    seconds: (Date.now() - started) / 1000,
    openclaw,
  });
  log("docs/benchmarks.md written");
}

main().catch((error) => {
  console.error(`bench failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
