// The terminal table and docs/benchmarks.md: each figure as a ratio to the baselines of the same run,
// and the targets of issue 6 §2 marked met or missed.
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { latencySection } from "./latency-report.mjs";
import { ledgerSection } from "./ledger-report.mjs";
import { openclawSection } from "./openclaw-report.mjs";
import { searchSection } from "./search.mjs";
import { keptSection } from "./sections.mjs";
import { sendSection } from "./send-report.mjs";
import { streamsSection } from "./stream-report.mjs";
import { targets } from "./targets.mjs";

const ms = (value) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : "–");
const spread = (stat) =>
  stat?.median === undefined ? ms(stat) : `${ms(stat.median)} (${ms(stat.min)}–${ms(stat.max)})`;
const value = (stat) => (stat?.median === undefined ? stat : stat.median);

/** The baselines of a result's phase (each phase is its own server process). */
export function baselineOf(results, row, which) {
  return results.find((entry) => entry.baseline === which && (entry.phase ?? 1) === (row.phase ?? 1));
}

function rowsOf(results) {
  return results
    .filter((row) => row.timing)
    .map((row) => {
      const healthz = value(baselineOf(results, row, "healthz")?.timing.p50);
      const ping = value(baselineOf(results, row, "ping")?.timing.p50);
      const p50 = value(row.timing.p50);
      return [
        row.name,
        spread(row.timing.p50),
        ms(value(row.timing.p90)),
        ms(value(row.timing.p99)),
        row.timing.rps ? spread(row.timing.rps) : "–",
        healthz ? `${(p50 / healthz).toFixed(1)}×` : "–",
        ping ? `${(p50 / ping).toFixed(1)}×` : "–",
        row.rowsRead === undefined ? "" : `${row.rowsRead} (${row.rows} rows)`,
      ];
    });
}

const HEAD = [
  "scenario",
  "p50 ms (min–max)",
  "p90",
  "p99",
  "req/s (min–max)",
  "÷healthz",
  "÷DO ping",
  "D1 rows_read",
];

/** Prints the results as an aligned table on stdout. */
export function printTable(results) {
  const rows = [HEAD, ...rowsOf(results)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  for (const row of rows) console.log(row.map((cell, i) => String(cell).padEnd(widths[i])).join("  "));
  for (const row of results.filter((entry) => entry.rssMaxMiB))
    console.log(
      `${row.name}: RSS ${row.rssBeforeMiB.toFixed(0)} → max ${row.rssMaxMiB.toFixed(0)} MiB, VmHWM ${row.peakHwmMiB.toFixed(0)} MiB`,
    );
  for (const row of results.filter((entry) => entry.stream || entry.ledger))
    console.log(`${row.met ? "MET   " : "MISSED"} ${row.name} (${row.target}): ${row.figure}`);
  for (const row of results.filter((entry) => entry.failed)) console.log(`FAILED ${row.name}: ${row.failed}`);
  for (const target of targets(results))
    console.log(`${verdict(target).padEnd(7)} ${target.name}: ${target.figure}`);
}

/** A target's verdict: met, missed, or context (a retired target, judged no more). */
const verdict = (target) => (target.met === undefined ? "CONTEXT" : target.met ? "MET" : "MISSED");
const verdictText = (target) => (target.met === undefined ? "context" : target.met ? "met" : "**missed**");

const version = (name) => JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")).version;

/** Rewrites docs/benchmarks.md: machine, date, method, results, targets; the analysis part is kept. */
export function writeReport(results, run) {
  const table = [HEAD, HEAD.map(() => "---"), ...rowsOf(results)]
    .map((row) => `| ${row.join(" | ")} |`)
    .join("\n");
  const memory = results
    .filter((row) => row.rssMaxMiB)
    .map(
      (row) =>
        `- ${row.name} in ${row.seconds.toFixed(1)} s: workerd RSS ${row.rssBeforeMiB.toFixed(0)} MiB before, at most ${row.rssMaxMiB.toFixed(0)} MiB while paging; VmHWM (peak since start, seeding included) ${row.peakHwmMiB.toFixed(0)} MiB.`,
    )
    .join("\n");
  const goals = targets(results)
    .map((target) => `| ${target.name} | ${verdictText(target)} | ${target.figure} |`)
    .join("\n");
  let notes = "";
  try {
    notes = readFileSync("docs/benchmarks.md", "utf8").split("<!-- notes -->")[1] ?? "";
  } catch {}
  const text = `# Benchmarks

Written by \`npm run bench\` (scripts/bench/); the part after the notes marker is kept between runs.

- Date: ${new Date().toISOString()}; scale \`${run.scale}\` (${run.seconds.toFixed(0)} s in all)
- Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${process.platform}
- Node ${process.version}, wrangler ${version("wrangler")}, workerd ${version("workerd")}

## Method

The local server of \`npm start\` (scripts/local-server.mjs: the Worker bundled by \`wrangler deploy --dry-run\`,
served by Miniflare's API in one workerd with its Durable Objects, D1 and queues; no proxy, no line logged per
request, no trace store) on loopback, in a process of its own (scripts/bench/serve.mjs), running the bench's
Worker (scripts/bench/worker.ts: the real one plus the baseline routes under \`/bench\`; scripts/bench/wrangler.toml),
offline, each phase over its own fresh state. "bare Miniflare no-op Worker" is a Worker of one line
answering "ok" on Miniflare in another process, measured in the same phase: the floor of any local request.
The configuration is the demo's (config/demo.json), plus a bench-only \`instant\` agent (scripts/bench/server.mjs).
A closed-loop client on Node's fetch: a ${300} ms warm-up, then
${run.reps} repetitions of ${run.durationMs} ms; p50/p90/p99 are medians over repetitions, with the min–max
of the repetitions in brackets. Concurrency 1 unless the row says c=8. Samples (delivery, wait, spawn,
export) are ${run.samples} one-at-a-time operations. Ratios divide a p50 by the baseline p50 of the same
Worker process: \`GET /healthz\` and a bare Durable Object RPC (\`GET /bench/ping/:key\` →
\`getByName(key).benchPing()\`); "SQL on the object" runs the history page's row read directly in the object;
"200 stored messages, object → client" is that page's stored safe copies as one JSON text, from the object
through a bare route to the client (\`GET /bench/page/:key\`): the floor under \`sessions_history\` 200 without
the tool's pipeline; "agents_list, a tool call with no storage" is that pipeline alone (auth, body, validation,
routing, the answer).
Send-and-wait is timed against \`instant\`, whose exchange ends at once (main answers its reply with
REPLY_SKIP, it skips the announce); the full loop is timed against \`research\` (2 ping-pong turns and an
announce). Delivery runs from the client holding \`accepted\` to the \`timestamp\` the target object wrote
on the row (same machine clock), so finding the row by polling adds nothing. Fire-and-forget rows marked
"accept path only" send to sessions whose sends the bench Worker's consumer drops (scripts/bench/worker.ts),
so no run follows them (issue 16's target is judged on them; see the fire-and-forget section).

Seeding: ${run.sessions} sessions through \`POST /v1/sessions\`; transcripts of ${run.history.join(" and ")} messages and the
${run.exportSize}-message export transcript through \`POST /v1/sessions/{key}/transcript\` in batches of 5,000.
The ${run.largeSessions}-session index is written **directly into D1** with \`wrangler d1 execute --local --file\`
(generated SQL, 25,000 rows a file), then the Worker is restarted over the same state; the API then lists it.
D1 \`rows_read\` comes from the bench route \`POST /bench/list\`, which runs the same \`listSessions\` query
(src/index-db/list.ts) for the same scope and filter with limit 50 and returns \`meta.rows_read\`. The
configuration's visibility is \`all\`, so the \`agent\` and \`tree\` visibility rows are timed on the bench
route (the D1 query alone), the other filters through \`POST /v1/tools/sessions_list\`.

## Results

${table}

${memory}
${results
  .filter((row) => row.failed)
  .map((row) => `- **Failed**: ${row.name}: ${row.failed}`)
  .join("\n")}

## Targets (issues 6 §2, 16 and 34)

| target | | figure |
| --- | --- | --- |
${goals}

${streamsSection(results, { ...run, date: new Date().toISOString() })}

${ledgerSection(results, { ...run, date: new Date().toISOString() })}

${searchSection(results, { ...run, date: new Date().toISOString() })}

${openclawSection(results, { ...run, date: new Date().toISOString() })}

${sendSection(results, { ...run, date: new Date().toISOString() })}

${latencySection(results, run)}

${keptSection("<!-- soak -->", "<!-- /soak -->")}

<!-- notes -->${notes || "\n\n## Notes\n"}`;
  writeFileSync("docs/benchmarks.md", text);
}
