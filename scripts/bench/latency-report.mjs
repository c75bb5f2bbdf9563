// The "Critical path under a production latency model" section of docs/benchmarks.md (latency.mjs's
// rows), between markers, so `BENCH_ONLY=latency` rewrites it alone.
import { LATENCY_TARGET } from "./latency.mjs";
import { writeSection } from "./sections.mjs";

const START = "<!-- latency -->";
const END = "<!-- /latency -->";
const ms = (value) => (Number.isFinite(value) ? value.toFixed(1) : "–");
const hopsText = (hops) =>
  Object.entries(hops)
    .filter(([, n]) => n > 0)
    .map(([part, n]) => `${n} ${part === "do" ? "DO" : part === "d1" ? "D1" : "Queue"}`)
    .join(" + ");

/** The target rows (targets.mjs): each operation within LATENCY_TARGET× of its floor. */
export function latencyTargets(results) {
  return results
    .filter((row) => row.latency)
    .map((row) => ({
      name: `${row.name.replace(/^latency: /, "")}: p50 under the latency model ≤ ${LATENCY_TARGET}× its unavoidable hops (+ its local work)`,
      met: row.ratio <= LATENCY_TARGET,
      figure: `${row.ratio.toFixed(2)}× (${ms(row.on)} ms; floor ${ms(row.floor)} = ${ms(row.off)} local + ${hopsText(row.hops)} = ${ms(row.modelled)} ms)`,
    }));
}

/** The section's markdown, markers included; empty when the run has no latency rows. */
export function latencySection(results, run) {
  const rows = results.filter((row) => row.latency);
  const failed = results.filter((row) => row.failed && row.name.startsWith("latency"));
  if (rows.length === 0 && failed.length === 0) return "";
  const model = run.latency;
  const table = rows
    .map(
      (row) =>
        `| ${row.name.replace(/^latency: /, "")} | ${hopsText(row.hops)}: ${row.why} | ${hopsText(row.made) || "none"} | ${ms(row.off)} | ${ms(row.modelled)} | ${ms(row.floor)} | ${ms(row.on)} | ${row.ratio.toFixed(2)}× | ${row.ratio <= LATENCY_TARGET ? "met" : "**missed**"} |`,
    )
    .join("\n");
  return `${START}
## Critical path under a production latency model (issue 34)

Run of ${run.date}. The model (\`BENCH_LATENCY=${run.latencyText}\`): ${model.d1} ms before each D1 round
trip, ${model.do} ms before each Durable Object call, ${model.queue} ms before each Queue send — a distant D1
primary, same-colo objects — added by the bench's binding wrappers (scripts/bench/counting.ts) in the
Worker, the session and agent objects and the queue consumer alike, on a Worker process of its own.
Each operation runs ${rows[0]?.samples ?? "–"} times with the model on and as many with it off, one of each in
turn (after one warm-up of each), ${"250"} ms apart, sessions that receive a message fresh for each sample.
**Unavoidable hops**: the calls that must precede the operation's answer, whatever the code (the column
says why). **Floor**: the operation's p50 with the model off (its local work, which the model does not
change) plus the model's delay for each unavoidable hop. **Calls made before the answer**: the median
count of each kind between the request and its answer with the model on (the calls on its path, and any
deferred work that began before the answer). A ratio above 1 is time spent waiting on a
modelled call the answer did not need, or on two that could have run side by side. Target: ≤
${LATENCY_TARGET}× (issue 34 item 4).

| operation | unavoidable hops | calls made before the answer | p50 model off ms | hops ms | floor ms | p50 model on ms | ÷ floor | ≤ ${LATENCY_TARGET}× |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${table}
${failed.map((row) => `\n- **Failed**: ${row.name}: ${row.failed}`).join("")}
${END}`;
}

/** Replaces the section in docs/benchmarks.md (before the notes marker when it has none yet). */
export function writeLatencySection(results, run) {
  writeSection(START, END, latencySection(results, run));
}
