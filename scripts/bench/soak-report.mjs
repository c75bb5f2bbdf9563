// The "Storage soak" section of docs/benchmarks.md (issue 33): per chat, D1 and object bytes over time,
// with retention on and off, and bytes per chat turn per store and per object table. Between markers, so
// `BENCH_ONLY=soak` rewrites it alone.
import { writeFileSync } from "node:fs";
import { writeSection } from "./sections.mjs";

const START = "<!-- soak -->";
const END = "<!-- /soak -->";
const kib = (bytes) => (bytes / 1024).toFixed(1);

/** Bytes per chat turn of one store between two samples (the turns are per chat too). */
const perTurn = (from, to, field) =>
  to.turnsPerChat > from.turnsPerChat ? (to[field] - from[field]) / (to.turnsPerChat - from.turnsPerChat) : 0;

function runTable(run) {
  const rows = run.samples
    .map(
      (row) =>
        `| ${row.seconds.toFixed(0)} | ${row.turnsPerChat.toFixed(0)} | ${row.messagesPerChat.toFixed(0)} | ${kib(
          row.d1BytesPerChat,
        )} | ${kib(row.objectBytesPerChat)} |`,
    )
    .join("\n");
  return `| s | turns per chat | kept messages per chat | D1 KiB per chat | object KiB per chat |
| --- | --- | --- | --- | --- |
${rows}`;
}

/** Bytes per turn over the whole run, and over its second half (once past every bound). */
function perTurnRows(runs) {
  return runs
    .map((run) => {
      const first = run.samples[0];
      const last = run.samples.at(-1);
      const middle = middleOf(run);
      return `| ${run.label} | ${perTurn(first, last, "d1BytesPerChat").toFixed(0)} | ${perTurn(middle, last, "d1BytesPerChat").toFixed(0)} | ${perTurn(first, last, "objectBytesPerChat").toFixed(0)} | ${perTurn(middle, last, "objectBytesPerChat").toFixed(0)} |`;
    })
    .join("\n");
}

/** The second-half sample: the first one at or past half the run's time. */
const middleOf = (run) =>
  run.samples.find((row) => row.seconds >= run.samples.at(-1).seconds / 2) ?? run.samples[0];

/** Bytes per chat turn of one object table between two samples. */
const tablePerTurn = (from, to, table) =>
  to.turnsPerChat > from.turnsPerChat
    ? ((to.tablesPerChat?.[table] ?? 0) - (from.tablesPerChat?.[table] ?? 0)) /
      (to.turnsPerChat - from.turnsPerChat)
    : 0;

/** A table's bytes per chat in a sample (0 where it had no page yet). */
const tableAt = (row, table) => row.tablesPerChat?.[table] ?? 0;

/**
 * The objects' bytes per table at the end of each run, and what each gained per turn in the 2nd half: the
 * tables that grew in either run a row each, the rest (their schema pages only) summed in one row.
 */
function tableRows(runs) {
  const tables = [...new Set(runs.flatMap((run) => Object.keys(run.samples.at(-1).tablesPerChat ?? {})))];
  const grew = (table) =>
    runs.some((run) => tableAt(run.samples.at(-1), table) !== tableAt(run.samples[0], table));
  const growing = tables
    .filter(grew)
    .sort((a, b) => tableAt(runs[0].samples.at(-1), b) - tableAt(runs[0].samples.at(-1), a));
  const fixed = tables.filter((table) => !grew(table));
  const cells = (pick) =>
    runs
      .map((run) => {
        const last = run.samples.at(-1);
        const middle = middleOf(run);
        const bytes = pick.reduce((sum, table) => sum + tableAt(last, table), 0);
        const perTurn = pick.reduce((sum, table) => sum + tablePerTurn(middle, last, table), 0);
        return `${kib(bytes)} | ${perTurn.toFixed(0)}`;
      })
      .join(" | ");
  return [
    ...growing.map((table) => `| \`${table}\` | ${cells([table])} |`),
    `| the other ${fixed.length} tables (schema pages only) | ${cells(fixed)} |`,
  ].join("\n");
}

export function soakSection(runs, meta) {
  const tables = runs
    .map((run) => `**${run.label}** (${run.turns} turns in all)\n\n${runTable(run)}`)
    .join("\n\n");
  return `${START}
## Storage soak (issue 33)

Run of ${meta.date}: \`BENCH_ONLY=soak npm run bench\` (\`BENCH_SOAK_SECONDS\`, default 150, and
\`BENCH_SOAK_CHATS\`, default 16, set the load). A Worker process of its own per run, fresh state: ${meta.chats}
chats of the \`soak\` agent (scripted answers of ~400 characters; a 6,000-token window, so each chat compacts
every few turns), each sending its next message as soon as the last one's run ended, for ${meta.seconds} s.
Every ${meta.sampleSeconds} s the maintenance pass runs (\`POST /v1/maintenance { mode: "enforce" }\`, the daily
pass sped up like the bounds), then its dry run is read: D1 bytes are the index database's size (all shards,
\`meta.size_after\`), object bytes the soak sessions' own SQLite sizes as each reported it with its last
index write (\`databaseSize\`), both divided by the chats. "Retention on" sets the soak agent's
\`maintenance\` to \`${JSON.stringify(meta.retention)}\`, crossed within the first minute; "retention off" keeps
the defaults (\`runRetention\` 30 days, no \`maxMessages\`, no \`searchRetention\`), which nothing in a few
minutes reaches. Sizes are allocated pages: SQLite reuses freed pages before it grows, so a bounded store
flattens rather than shrinks. The object's event log (SPEC §13) goes with the runs after \`runRetention\`
(SPEC §23), inside its own bound of 10,000 events or 30 days per session; before it did (this soak's run of
2026-11-27), the log was what an object still gained with retention on: 1,452 B per turn in the second
half. With retention on, an object past its bounds keeps its schema (every table and every index takes at
least one 4 KiB page: the last row of the per-table table below, the tables that hold at most a row or two
here) and the bounded rows: the newest \`maxMessages\` messages,
and the runs, run streams and events of the last \`runRetention\`. That is the floor its curve flattens at
(a bounded row count, so it scales with how many turns fit in \`runRetention\`, not with the turns made); it
moves a few pages either way as SQLite reuses freed pages, so the second half's bytes per turn are near 0,
negative where a pass freed more than the turns since used.

${tables}

Bytes per chat turn, per store (whole run; second half, once past every bound):

| run | D1 B/turn | D1 B/turn, 2nd half | object B/turn | object B/turn, 2nd half |
| --- | --- | --- | --- | --- |
${perTurnRows(runs)}

The objects per table (its indexes with it), from their SQLite files (\`dbstat\`): KiB per chat at the
end, and bytes per chat turn in the second half; a table that never grew in either run holds only its
schema's pages.

| table | ${runs.map((run) => `${run.label}: KiB per chat | B/turn, 2nd half`).join(" | ")} |
| --- | ${runs.map(() => "--- | ---").join(" | ")} |
${tableRows(runs)}

${END}`;
}

/** Rewrites the soak section of docs/benchmarks.md. */
export function writeSoakSection(runs, meta) {
  // The samples as measured, for a look beyond the section (.wrangler is never committed).
  writeFileSync(".wrangler/soak-runs.json", JSON.stringify({ meta, runs }, null, 2));
  writeSection(START, END, soakSection(runs, meta));
}
