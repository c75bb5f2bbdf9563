// The side-by-side run against the real OpenClaw gateway (BENCH_OPENCLAW=1, issue 16): both services on
// one stand-in model with no think time, the same data (openclaw-seed.mjs), the same `POST /tools/invoke`
// bodies, one request at a time and interleaved — each round calls every operation on both sides, the
// side that goes first alternating by round — so the machine's noise falls on both alike. Every answer is
// checked to be the real success (a ratio over an error answer would be worthless).
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { startModelServer } from "./model-server.mjs";
import { OPENCLAW_TOKEN, prepareGateway, startGateway } from "./openclaw-gateway.mjs";
import { installOpenClaw } from "./openclaw-install.mjs";
import { HISTORY_SIZE, KEYS, SESSION_COUNT, seedOpenClaw, seedSwitchboard } from "./openclaw-seed.mjs";
import { cpuMsOf, descendants, migrate, startWorker, TOKENS } from "./server.mjs";

const LIST_LIMIT = 50;
/** Send rounds before the measured ones: OpenClaw's first turns after its start take seconds. */
export const SEND_WARMUP = 5;
const REPLY = "Streaming reply from the bench model.";
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * One operation: its `/tools/invoke` body (none: `GET /healthz`) and the check of its `details`; or, for
 * one side `only`, a bench route (`path`, POSTed `body` if any) and the check of its JSON answer.
 */
const OPERATIONS = [
  { name: "GET /healthz", check: () => true },
  {
    name: "sessions_list",
    tool: "sessions_list",
    args: { limit: LIST_LIMIT },
    check: (details) => details.sessions?.length === LIST_LIMIT,
  },
  // Ours alone, the floors under sessions_list on this machine: one D1 round trip through a bare route,
  // and the list's own D1 batch (the 50-row page and its rows' children) with no tool around it.
  { name: "floor: D1 SELECT 1", path: "/bench/d1", only: "switchboard", check: () => true },
  {
    name: "floor: the list's D1 batch alone",
    path: "/bench/list",
    body: { scope: { type: "all" }, limit: LIST_LIMIT },
    only: "switchboard",
    check: (answer) => answer.count === LIST_LIMIT,
  },
  {
    name: "sessions_history",
    tool: "sessions_history",
    args: { sessionKey: KEYS.history, limit: HISTORY_SIZE },
    check: (details) =>
      details.messages?.length === HISTORY_SIZE &&
      JSON.stringify(details.messages.at(-1)).includes(`Message ${HISTORY_SIZE - 1}:`),
  },
  {
    name: "session_status",
    tool: "session_status",
    args: { sessionKey: KEYS.history },
    check: (details) =>
      details.status !== "error" &&
      details.status !== "forbidden" &&
      JSON.stringify(details).includes(KEYS.history),
  },
];
/** Send-and-wait to the `streamer` agent, whose model answers at once. */
const SEND = {
  name: "sessions_send wait",
  tool: "sessions_send",
  args: (i) => ({ sessionKey: KEYS.target, message: `bench send ${i}`, timeoutSeconds: 60 }),
  check: (details) => details.status === "ok" && details.reply?.includes(REPLY),
};

/** Calls `operation` once on `side`; resolves to its latency (ms); throws on anything but its success. */
async function call(side, operation, i) {
  const t0 = performance.now();
  const response = operation.tool
    ? await fetch(`${side.base}/tools/invoke`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${side.token}` },
        body: JSON.stringify({
          tool: operation.tool,
          args: typeof operation.args === "function" ? operation.args(i) : operation.args,
          sessionKey: KEYS.main,
        }),
      })
    : operation.body
      ? await fetch(`${side.base}${operation.path}`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(operation.body),
        })
      : await fetch(`${side.base}${operation.path ?? "/healthz"}`);
  const text = await response.text();
  const ms = performance.now() - t0;
  const details = operation.tool
    ? JSON.parse(text).result?.details
    : operation.path
      ? JSON.parse(text)
      : undefined;
  if (!response.ok || ((operation.tool || operation.path) && !details) || !operation.check(details ?? {}))
    throw new Error(`${side.name} ${operation.name}: ${response.status} ${text.slice(0, 400)}`);
  return ms;
}

/** CPU time (ms) used so far by a process and everything below it; processes that ended count 0. */
function treeCpuMs(pid) {
  const cpu = (id) => {
    try {
      return cpuMsOf(id);
    } catch {
      return 0;
    }
  };
  let below = [];
  try {
    below = descendants(pid);
  } catch {}
  return [pid, ...below].reduce((sum, id) => sum + cpu(id), 0);
}

/**
 * Waits until the exchange after a send has settled on both sides: the model has had no request and
 * each side's process tree used under 10% of a core for `quietMs` (both run work after the reply: the
 * reply-back and announce steps, and whatever else they do), at most 20 s. Resolves to the ms it took
 * and, per side, when its tree was last seen busy (ms after the start; 0: never).
 */
async function settled(model, pids, quietMs = 500) {
  const t0 = performance.now();
  const lastBusy = pids.map(() => 0);
  while (performance.now() - t0 < 20_000) {
    const seen = model.requests.length;
    const before = pids.map(treeCpuMs);
    await new Promise((resolve) => setTimeout(resolve, quietMs));
    const busy = pids.map((pid, i) => treeCpuMs(pid) - before[i] > quietMs / 10);
    busy.forEach((isBusy, i) => {
      if (isBusy) lastBusy[i] = performance.now() - t0;
    });
    if (!busy.includes(true) && seen === model.requests.length) break;
  }
  return { ms: performance.now() - t0, lastBusy };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Runs `rounds` rounds of `operations` on both sides, first side alternating; latencies per side. */
async function interleave(sides, operations, rounds, { warmup = 0, between } = {}) {
  const samples = new Map(operations.map((op) => [op.name, sides.map(() => [])]));
  for (let round = -warmup; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const operation of operations)
      for (const index of order) {
        if (operation.only && sides[index].name !== operation.only) continue;
        const ms = await call(sides[index], operation, round + warmup);
        if (round >= 0) samples.get(operation.name)[index].push(ms);
        if (between) await between(index);
      }
  }
  return [...samples].map(([name, perSide]) => {
    const [ours, theirs] = perSide.map((values) => {
      if (values.length === 0) return undefined;
      const sorted = [...values].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), count: sorted.length };
    });
    return { name, ours, theirs };
  });
}

/** The comparison, with our Worker over `stateDir` (migrated); resolves to result rows and the run's facts. */
async function openclawComparison({ stateDir, rounds, sends, log }) {
  const t0 = Date.now();
  const install = await installOpenClaw({ log });
  const installSeconds = (Date.now() - t0) / 1000;
  log(`openclaw ${install.version} on Node ${install.nodeVersion} (${install.dir})`);
  const model = await startModelServer({ thinkMs: 0, pieceGapMs: 0 });
  const dir = mkdtempSync(path.join(tmpdir(), "switchboard-bench-openclaw-"));
  let worker;
  let gateway;
  try {
    const port = await prepareGateway(dir, model.baseUrl);
    log(`openclaw: seeding ${SESSION_COUNT} sessions into its legacy store, then doctor's SQLite import`);
    seedOpenClaw(install, dir);
    gateway = await startGateway(install, dir, port);
    worker = await startWorker(stateDir, {}, { modelUrl: model.baseUrl });
    log(`switchboard on ${worker.base}, openclaw on ${gateway.base}; seeding switchboard through its API`);
    await seedSwitchboard(worker.base);
    const sides = [
      { name: "switchboard", base: worker.base, token: TOKENS.main },
      { name: "openclaw", base: gateway.base, token: OPENCLAW_TOKEN },
    ];
    const pids = [worker.pid, gateway.pid];
    // Both start background work after they answer (OpenClaw keeps loading plugins past /readyz).
    log(`openclaw: both sides idle after ${(await settled(model, pids)).ms.toFixed(0)} ms`);
    log(`openclaw: ${rounds} interleaved rounds of healthz, list (and our floors under it), history, status`);
    const readWarmup = Math.ceil(rounds / 10);
    const reads = await interleave(sides, OPERATIONS, rounds, { warmup: readWarmup });
    log(`openclaw: ${sends} interleaved send-and-wait rounds`);
    const waits = [];
    const between = async (index) => waits.push({ index, ...(await settled(model, pids)) });
    const send = await interleave(sides, [SEND], sends, { warmup: SEND_WARMUP, between });
    const settle = median(waits.map((wait) => wait.ms));
    // Each side's own tail: how long its tree kept working after answering its own send.
    const tail = (i) => median(waits.filter((wait) => wait.index === i).map((wait) => wait.lastBusy[i]));
    const busy = sides.map(
      (side, i) =>
        `${side.name} ${tail(i) ? `${tail(i).toFixed(0)} ms` : "never (idle in its first 500 ms)"}`,
    );
    log(
      `openclaw: a send settled in ${settle.toFixed(0)} ms (median); busy after its own: ${busy.join(", ")}`,
    );
    const rows = [...reads, ...send].map((row) => ({ ...row, openclaw: true }));
    return {
      rows,
      facts: {
        version: install.version,
        nodeVersion: install.nodeVersion,
        installed: install.installed,
        installSeconds,
        rounds,
        readWarmup,
        sends,
        settleMs: settle,
        load: loadavg()[0],
        busyAfterSend: busy.join(", "),
      },
    };
  } finally {
    await worker?.stop();
    await gateway?.stop();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The bench's OpenClaw phase: pushes the comparison's rows (`openclaw: true`) onto `all`, or one failed
 * row, and resolves to the run's facts for the report (undefined when it failed). Our side runs over a
 * fresh `stateDir`; `scale` gives the rounds (openclawRounds, openclawSends).
 */
export async function phaseOpenClaw(all, { stateDir, scale, log }) {
  try {
    rmSync(stateDir, { recursive: true, force: true });
    migrate(stateDir);
    const { rows, facts } = await openclawComparison({
      stateDir,
      rounds: scale.openclawRounds,
      sends: scale.openclawSends,
      log,
    });
    all.push(...rows);
    return facts;
  } catch (error) {
    log(`openclaw comparison failed: ${error.message}`);
    all.push({ name: "openclaw comparison", failed: error.message });
    return undefined;
  }
}
