#!/usr/bin/env node
// CPU-profiles the local Worker under one load scenario, to see where the time goes:
//
//   npm run bench:profile -- <history200|sendwait|fireforget|list|healthz> [seconds=5]
//
// Starts `wrangler dev` (bench routes on) with its inspector on a free port, seeds what the scenario
// needs, warms up, then samples the Worker's isolate through the Chrome DevTools Protocol while the load
// runs. Writes .wrangler/profiles/<scenario>.cpuprofile (open it in Chrome DevTools or speedscope) and
// prints the time split and the top functions by self and by inclusive time, mapped back to src/ through
// the bundle's source map. PROFILE_ALSO=d1:db[,queues:queue,…] also profiles those miniflare services
// (they run as separate workers in the same workerd; their targets are listed at start).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { api, ok } from "./api.mjs";
import { waitForIndex } from "./list.mjs";
import { createSessions, importTranscript } from "./seed.mjs";
import { ADMIN, freePort, HOST, startWorker, TOKENS, wrangler } from "./server.mjs";

const STATE_DIR = ".wrangler/profile-state";
const OUT_DIR = ".wrangler/profiles";
const DRAIN_SECONDS = 4; // fireforget: keep sampling while queued deliveries and session runs drain
const SAMPLING_US = Number(process.env.PROFILE_INTERVAL_US ?? 100);

const post = (base, path, token, body) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

let fresh = 0;
/** A new research session, so one send never queues behind another's run (as messaging.mjs does). */
async function newTarget(base) {
  const key = `agent:research:api:profile-${fresh++}`;
  const created = await api(base, "POST", "/v1/sessions", ADMIN, { key });
  if (created.status !== 201) throw new Error(`create ${key}: ${created.status}`);
  return key;
}

/** Each scenario: seeding (not profiled), concurrency, and one request (false/throw = failure). */
const SCENARIOS = {
  history200: {
    concurrency: 1,
    async setup(base) {
      await importTranscript(base, "agent:main:api:history-1000", 1000);
    },
    request: (base) =>
      ok(
        post(base, "/v1/tools/sessions_history", TOKENS.main, {
          sessionKey: "agent:main:api:history-1000",
          limit: 200,
        }),
      ),
  },
  sendwait: {
    concurrency: 1,
    // Each iteration creates its target, then waits on the scripted research agent's reply.
    request: async (base) => {
      const sessionKey = await newTarget(base);
      const sent = await api(base, "POST", "/v1/tools/sessions_send", TOKENS.main, {
        sessionKey,
        message: "profile probe",
        timeoutSeconds: 15,
      });
      return sent.status === 200 && sent.json?.status === "ok";
    },
  },
  fireforget: {
    concurrency: 8,
    drainSeconds: DRAIN_SECONDS,
    async setup(base, ctx) {
      ctx.targets = [];
      for (let i = 0; i < 8; i++) ctx.targets.push(await newTarget(base));
    },
    // Warm-up at concurrency 1 only, so the profiled run starts with (almost) no backlog.
    warmupConcurrency: 1,
    request: (base, ctx, worker, i) =>
      ok(
        post(base, "/v1/tools/sessions_send", TOKENS.main, {
          sessionKey: ctx.targets[worker],
          message: `load ${worker}-${i}`,
          timeoutSeconds: 0,
        }),
      ),
  },
  list: {
    concurrency: 1,
    async setup(base) {
      await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
      await createSessions(base, 199);
      await waitForIndex(base, 200);
    },
    request: (base) => ok(post(base, "/v1/tools/sessions_list", TOKENS.main, { limit: 50 })),
  },
  healthz: { concurrency: 1, request: (base) => ok(fetch(`${base}/healthz`)) },
};

/** Closed loop for `ms`: `concurrency` workers, each sending its next request when the last answers. */
async function load(request, concurrency, ms) {
  const started = performance.now();
  const perSecond = [];
  let done = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() - started < ms; i++) {
        const good = await request(worker, i).then(
          (r) => r !== false,
          () => false,
        );
        if (!good) failures++;
        else {
          done++;
          const second = Math.floor((performance.now() - started) / 1000);
          perSecond[second] = (perSecond[second] ?? 0) + 1;
        }
      }
    }),
  );
  return { done, failures, seconds: (performance.now() - started) / 1000, perSecond };
}

/** A minimal CDP client over the global WebSocket. */
async function cdp(url) {
  // wrangler's proxy rejects upgrades with a User-Agent but no local Origin (a browser-CSRF guard).
  const ws = new WebSocket(url, { headers: { Origin: `http://${HOST}` } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  const pending = new Map();
  let nextId = 0;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const waiter = pending.get(message.id);
    if (!waiter) return; // events (console, scriptParsed) are not needed
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${waiter.method}: ${JSON.stringify(message.error)}`));
    else waiter.resolve(message.result);
  };
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject, method });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

async function startProfiler(url) {
  const session = await cdp(url);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
  await session.send("Profiler.start");
  return session;
}

/** Every process under `pid` (through /proc/<pid>/task/<tid>/children). */
function descendants(pid) {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/**
 * workerd's own inspector, which lists every worker in the process (D1, queues, …); wrangler only proxies
 * the user Worker. Miniflare binds it to port 0, so find that workerd's listening sockets through /proc.
 * (wrangler runs a second workerd, without an inspector, for its own proxy workers.)
 */
async function runtimeTargets(wranglerPid) {
  const pid = descendants(wranglerPid).find((p) =>
    readFileSync(`/proc/${p}/cmdline`, "utf8").includes("--inspector-addr"),
  );
  if (!pid) return [];
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /socket:\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {}
  }
  const ports = readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[3] === "0A" && inodes.has(f[9])) // 0A: LISTEN
    .map((f) => Number.parseInt(f[1].split(":")[1], 16));
  for (const port of ports) {
    const list = await fetch(`http://${HOST}:${port}/json`)
      .then((r) => r.json())
      .catch(() => undefined);
    if (Array.isArray(list) && list[0]?.webSocketDebuggerUrl) return list;
  }
  return [];
}

// --- Source map: bundle line/column → src file:line, so the report names our own code. ---------------
const B64 = Object.fromEntries(
  [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].map((c, i) => [c, i]),
);
function decodeMappings(mappings) {
  const lines = [];
  const state = [0, 0, 0, 0]; // generated column resets per line; source, line, column carry over
  for (const line of mappings.split(";")) {
    state[0] = 0;
    const segments = [];
    for (const segment of line.split(",")) {
      if (!segment) continue;
      const values = [];
      for (let i = 0, value = 0, shift = 0; i < segment.length; i++) {
        const digit = B64[segment[i]];
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = shift = 0;
        }
      }
      for (let k = 0; k < Math.min(4, values.length); k++) state[k] += values[k];
      if (values.length >= 4) segments.push([...state]);
    }
    lines.push(segments);
  }
  return lines;
}

/**
 * The bundle's source map. The profile names the bundle by a bare "index.js", so look for it in wrangler's
 * .wrangler/tmp/dev-…/ (deleted when wrangler exits: call this while the Worker runs).
 */
function loadSourceMap(bundleUrl) {
  try {
    const tmp = ".wrangler/tmp";
    const file = bundleUrl.startsWith("file://")
      ? `${new URL(bundleUrl).pathname}.map`
      : readdirSync(tmp)
          .map((dir) => `${tmp}/${dir}/${bundleUrl}.map`)
          .filter((path) => existsSync(path))
          .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    const map = JSON.parse(readFileSync(file, "utf8"));
    const lines = decodeMappings(map.mappings);
    return (line, column) => {
      let hit;
      for (const segment of lines[line] ?? []) if (segment[0] <= column) hit = segment;
      if (!hit) return undefined;
      const source = map.sources[hit[1]].replace(/^(\.\.\/)+/, "").replace(/^.*node_modules\//, "");
      return `${source}:${hit[2] + 1}`;
    };
  } catch {
    return undefined;
  }
}

// --- Profile analysis -------------------------------------------------------------------------------
const META = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);
// V8 only takes a sample while the isolate is entered, and workerd exits it whenever the Worker waits on
// I/O: samples come ~150 µs apart while it runs, then one gap as long as the wait. DevTools would charge
// each gap to the last sample before it (whatever ran just before an await). So every sample counts the
// same: the median spacing of samples less than 1 ms apart, i.e. the sampling period while busy. Wall time
// not covered that way is reported as outside the isolate (I/O waits, idle, other workers such as D1).
function analyse(profile, where) {
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map(); // node id → µs
  const firstHalf = new Map(); // node id → µs within the first half of the run (growth check)
  const times = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    times.push(t);
  }
  const middle = (profile.startTime + profile.endTime) / 2;
  const close = profile.timeDeltas.filter((d) => d > 0 && d < 1000).sort((a, b) => a - b);
  const duration = close[Math.floor(close.length / 2)] ?? SAMPLING_US;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + duration);
    if (times[i] < middle) firstHalf.set(id, (firstHalf.get(id) ?? 0) + duration);
  }
  const frameKey = ({ callFrame: { functionName, url, lineNumber, columnNumber } }) => {
    const name = functionName || "(anonymous)";
    if (META.has(name)) return name;
    const mapped = url && where(url, lineNumber, columnNumber);
    return `${name}  ${mapped ?? (url ? `${short(url)}:${lineNumber + 1}` : "(native)")}`;
  };
  const keyOf = new Map(profile.nodes.map((node) => [node.id, frameKey(node)]));
  const bySelf = new Map();
  const byHalf = new Map();
  const byTotal = new Map();
  for (const [id, us] of self) {
    const key = keyOf.get(id);
    bySelf.set(key, (bySelf.get(key) ?? 0) + us);
    byHalf.set(key, (byHalf.get(key) ?? 0) + (firstHalf.get(id) ?? 0));
    // Inclusive: credit every distinct function on the stack once (recursion is not double counted).
    const onStack = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) onStack.add(keyOf.get(n));
    for (const k of onStack) byTotal.set(k, (byTotal.get(k) ?? 0) + us);
  }
  // Per second of the profile: in-isolate ms, and how much of it had Durable Object code on the stack.
  const timeline = [];
  const inObject = new Map(); // node id → has a src/session/ frame on its stack
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    if (!inObject.has(id)) {
      let found = false;
      for (let n = id; n !== undefined && !found; n = parent.get(n))
        found = keyOf.get(n).includes("src/session/");
      inObject.set(id, found);
    }
    const second = Math.floor((times[i] - profile.startTime) / 1e6);
    timeline[second] ??= { us: 0, object: 0 };
    timeline[second].us += duration;
    if (inObject.get(id)) timeline[second].object += duration;
  }
  const busy = [...self.values()].reduce((a, b) => a + b, 0);
  const wall = profile.endTime - profile.startTime;
  const split = { "(idle)": 0, "(program)": 0, "(garbage collector)": 0, JS: 0 };
  for (const [key, us] of bySelf) split[key in split ? key : "JS"] += us;
  return {
    wall,
    busy,
    split,
    bySelf,
    byHalf,
    byTotal,
    samples: profile.samples.length,
    period: duration,
    timeline,
  };
}

/** file:///…/.wrangler/tmp/dev-x/index.js → .wrangler/…/index.js; long urls keep their tail. */
function short(url) {
  const cwd = `file://${process.cwd()}/`;
  const s = url.startsWith(cwd) ? url.slice(cwd.length) : url.replace(/^.*node_modules\//, "");
  return s.length > 60 ? `…${s.slice(-59)}` : s;
}

const ms = (us) => (us / 1000).toFixed(1).padStart(9);
const pct = (us, total) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;

function report(title, analysis) {
  const { wall, busy, split, bySelf, byHalf, byTotal, samples, period, timeline } = analysis;
  console.log(
    `\n== ${title}\n  ${samples} samples × ${period} µs = ${ms(busy).trim()} ms in the isolate, of ${ms(wall).trim()} ms wall`,
  );
  console.log(
    `  ${"outside the isolate".padEnd(20)} ${ms(wall - busy)} ms (waiting on I/O, idle, other workers)`,
  );
  for (const [name, us] of Object.entries(split))
    console.log(`  ${name.padEnd(20)} ${ms(us)} ms ${pct(us, busy)} of sampled`);
  const perSecond = Array.from(timeline, (t) =>
    t ? `${ms(t.us).trim()}(${Math.round((100 * t.object) / t.us)}%)` : "0",
  );
  console.log(`  in-isolate ms per second (share with src/session/ on the stack): ${perSecond.join(" ")}`);
  const top = (map, n) =>
    [...map]
      .filter(([k]) => !META.has(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, n);
  console.log("\n  top 30 by self time   self ms  %sampled  2nd:1st half");
  for (const [key, us] of top(bySelf, 30)) {
    const first = byHalf.get(key) ?? 0;
    const ratio = first > 0 ? ((us - first) / first).toFixed(2) : "-";
    console.log(`  ${ms(us)} ${pct(us, busy)}  ${ratio.padStart(10)}  ${key}`);
  }
  console.log("\n  top 20 by total (inclusive) time");
  for (const [key, us] of top(byTotal, 20)) console.log(`  ${ms(us)} ${pct(us, busy)}  ${key}`);
}

async function main() {
  const [name, secondsArg = "5"] = process.argv.slice(2);
  const scenario = SCENARIOS[name];
  const seconds = Number(secondsArg);
  if (!scenario || !(seconds > 0)) {
    console.error(`usage: node scripts/bench/profile.mjs <${Object.keys(SCENARIOS).join("|")}> [seconds=5]`);
    process.exit(2);
  }
  rmSync(STATE_DIR, { recursive: true, force: true });
  wrangler(["d1", "migrations", "apply", "switchboard", "--local", "--persist-to", STATE_DIR]);
  const inspectorPort = await freePort();
  const worker = await startWorker(STATE_DIR, ["--inspector-port", String(inspectorPort)]);
  const { base } = worker;
  const ctx = {};
  try {
    const targets = await fetch(`http://${HOST}:${inspectorPort}/json`).then((r) => r.json());
    const runtime = await runtimeTargets(worker.pid);
    console.log(
      `wrangler inspector targets: ${targets.map((t) => `${t.title} (${t.webSocketDebuggerUrl})`).join(", ")}`,
    );
    console.log(`workerd targets (PROFILE_ALSO): ${runtime.map((t) => t.id).join(", ")}`);
    await scenario.setup?.(base, ctx);
    const request = (worker, i) => scenario.request(base, ctx, worker, i);
    await load(request, scenario.warmupConcurrency ?? scenario.concurrency, 1000); // JIT warm-up

    const also = (process.env.PROFILE_ALSO ?? "").split(",").filter(Boolean);
    const extra = [];
    for (const id of also) {
      const target = runtime.find((t) => t.id === id);
      if (!target) throw new Error(`no workerd target ${id}`);
      extra.push({ id, session: await startProfiler(target.webSocketDebuggerUrl) });
    }
    const session = await startProfiler(targets[0].webSocketDebuggerUrl);
    const result = await load(request, scenario.concurrency, seconds * 1000);
    if (scenario.drainSeconds) await new Promise((r) => setTimeout(r, scenario.drainSeconds * 1000));
    const { profile } = await session.send("Profiler.stop");
    session.close();

    const where = (() => {
      const maps = new Map();
      return (url, line, column) => {
        if (!url.endsWith(".js")) return undefined;
        if (!maps.has(url)) maps.set(url, loadSourceMap(url));
        return maps.get(url)?.(line, column);
      };
    })();
    mkdirSync(OUT_DIR, { recursive: true });
    const file = `${OUT_DIR}/${name}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(
      `\n${name}: ${result.done} requests in ${result.seconds.toFixed(1)} s = ${(result.done / result.seconds).toFixed(1)} req/s` +
        ` (concurrency ${scenario.concurrency}, ${result.failures} failures)${scenario.drainSeconds ? `, then ${scenario.drainSeconds} s of drain` : ""}`,
    );
    const whole = Math.floor(result.seconds); // the last, partial second is left out
    console.log(
      `  requests per second of the run: ${Array.from({ length: whole }, (_, i) => result.perSecond[i] ?? 0).join(" ")}`,
    );
    console.log(`  profile: ${file} (${profile.samples.length} samples)`);
    report(`${targets[0].title} (wrangler's proxy → core:user:switchboard)`, analyse(profile, where));
    for (const { id, session: extraSession } of extra) {
      const { profile: p } = await extraSession.send("Profiler.stop");
      extraSession.close();
      const extraFile = `${OUT_DIR}/${name}.${id.replaceAll(":", "_")}.cpuprofile`;
      writeFileSync(extraFile, JSON.stringify(p));
      report(`${id} (${extraFile})`, analyse(p, where));
    }
  } finally {
    await worker.stop();
  }
}

main().catch((error) => {
  console.error(`profile failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
