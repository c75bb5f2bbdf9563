// The "Fire-and-forget throughput" section of docs/benchmarks.md (issue 16): the rows of its own Worker
// process and the target, throughput as ratios within that one run. Between markers, so
// `BENCH_ONLY=send` can rewrite it alone.
import { keptSection, writeSection } from "./sections.mjs";

const START = "<!-- send -->";
const END = "<!-- /send -->";
const SEND_PHASE = 7;
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const spread = (stat, digits) =>
  `${fixed(stat.median, digits)} (${fixed(stat.min, digits)}–${fixed(stat.max, digits)})`;

/**
 * Issue 16's rule, on throughputs at c=8: ≥ 50% of /healthz, or, when the floor (one D1 read and one
 * Queue send) is itself below that, within 1.5× of the floor.
 */
export const fireAndForgetMet = (sends, healthz, floor) =>
  sends / healthz >= 0.5 || (floor < healthz / 2 && floor / sends <= 1.5);

/** The row of the send phase named `name` (the " (send run)" tag aside). */
const rowOf = (rows, name) => rows.find((row) => row.name.replace(" (send run)", "") === name);

/**
 * Issue 16's target for the fire-and-forget row `name` at c=8, from the send phase's rows:
 * { met, figure }, or undefined when a figure is missing.
 */
export function sendTarget(rows, name) {
  const healthz = rowOf(rows, "baseline: GET /healthz c=8")?.timing.rps.median;
  const floor = rowOf(rows, "baseline: D1 key read + Queue send c=8")?.timing.rps.median;
  const sends = rowOf(rows, name)?.timing.rps.median;
  if (!healthz || !floor || !sends) return undefined;
  const ofHealthz = sends / healthz;
  const belowFloor = floor / sends;
  return {
    met: fireAndForgetMet(sends, healthz, floor),
    figure: `${fixed(sends, 1)} req/s = ${(ofHealthz * 100).toFixed(0)}% of /healthz c=8 (${fixed(healthz, 1)} req/s); the floor ${fixed(floor, 1)} req/s (${(
      (floor / healthz) * 100
    ).toFixed(0)}% of /healthz) is ${fixed(belowFloor)}× the sends`,
  };
}

const TARGET_ROWS = [
  "sessions_send fire-and-forget c=8, accept path only",
  "sessions_send fire-and-forget c=8",
];

/** The section's markdown, markers included; the one written before when the run has no send phase. */
export function sendSection(results, run) {
  const rows = results.filter((row) => row.phase === SEND_PHASE && row.timing);
  if (rows.length === 0) return keptSection(START, END);
  const healthz = rowOf(rows, "baseline: GET /healthz c=8")?.timing.rps.median;
  const table = rows
    .map(
      (row) =>
        `| ${row.name.replace(" (send run)", "")} | ${spread(row.timing.p50)} | ${fixed(row.timing.p90.median)} | ${spread(
          row.timing.rps,
          1,
        )} | ${healthz ? `${((row.timing.rps.median / healthz) * 100).toFixed(0)}%` : "–"} |`,
    )
    .join("\n");
  const goals = TARGET_ROWS.map((name) => {
    const target = sendTarget(rows, name);
    return `| ${name} | ${target ? (target.met ? "met" : "**missed**") : "–"} | ${target?.figure ?? "no figure"} |`;
  }).join("\n");
  return `${START}
## Fire-and-forget throughput (issue 16)

Run of ${run.date}, scale \`${run.scale}\`. A Worker process of its own (fresh state, ${run.sessions} sessions
created through the API), the closed-loop client of the main table (${run.reps} × ${run.durationMs} ms after
a 300 ms warm-up, medians over the repetitions); throughput is compared within this one process. Each
fire-and-forget worker sends as \`agent:main:main\` to a \`research\` session of its own; the floor is
\`GET /bench/accept-floor\` (one D1 primary-key read and one Queue send to a queue without consumer).
"Accept path only" rows send to \`accept-only-*\` sessions, whose sends the bench Worker's consumer takes
off the Queue undelivered (scripts/bench/worker.ts), so no run follows them; the last two rows are the
same load delivered: each send then starts a run in its target, two ping-pong turns and an announce, in
the same workerd as the sends that follow.

| scenario | p50 ms (min–max) | p90 | req/s (min–max) | ÷ /healthz c=8 req/s |
| --- | --- | --- | --- | --- |
${table}

Target: at c=8, ≥ 50% of /healthz c=8 throughput, or within 1.5× of the floor when the floor is below that.
The accept path's row is the target's figure; the full row is the same load with every send delivered.

| row | | figure |
| --- | --- | --- |
${goals}

${END}`;
}

/** Rewrites the fire-and-forget section of docs/benchmarks.md from a `BENCH_ONLY=send` run. */
export function writeSendSection(results, run) {
  writeSection(START, END, sendSection(results, run));
}
