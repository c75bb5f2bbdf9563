// The reading side of scripts/bench/profile.mjs: maps bundle positions back to src/ through the source
// map, splits a .cpuprofile's time (in/outside the isolate, self and inclusive per function, growth from
// the first to the second half of the run) and prints that report.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { SAMPLING_US } from "./profile-cdp.mjs";

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
 * .wrangler/tmp/dev-…/ next to the bench's wrangler.toml (deleted when wrangler exits: call this while the
 * Worker runs).
 */
function loadSourceMap(bundleUrl) {
  try {
    const tmp = path.join(import.meta.dirname, ".wrangler/tmp");
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

/**
 * `where(url, line, column)` for analyse: the src file:line of a bundle position, loading each bundle's
 * source map once. Like loadSourceMap, use it while the Worker runs.
 */
export function sourceLocator() {
  const maps = new Map();
  return (url, line, column) => {
    if (!url.endsWith(".js")) return undefined;
    if (!maps.has(url)) maps.set(url, loadSourceMap(url));
    return maps.get(url)?.(line, column);
  };
}

// --- Profile analysis -------------------------------------------------------------------------------
const META = new Set(["(idle)", "(program)", "(garbage collector)", "(root)"]);
// V8 only takes a sample while the isolate is entered, and workerd exits it whenever the Worker waits on
// I/O: samples come ~150 µs apart while it runs, then one gap as long as the wait. DevTools would charge
// each gap to the last sample before it (whatever ran just before an await). So every sample counts the
// same: the median spacing of samples less than 1 ms apart, i.e. the sampling period while busy. Wall time
// not covered that way is reported as outside the isolate (I/O waits, idle, other workers such as D1).
export function analyse(profile, where) {
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

export function report(title, analysis) {
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
