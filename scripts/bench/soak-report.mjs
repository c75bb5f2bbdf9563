// The "Storage soak" section of docs/benchmarks.md (issue 33): per chat, D1 and object bytes over time,
// with retention on and off, and bytes per chat turn per store. Between markers, so `BENCH_ONLY=soak`
// rewrites it alone.
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
      const middle = run.samples.find((row) => row.seconds >= last.seconds / 2) ?? first;
      return `| ${run.label} | ${perTurn(first, last, "d1BytesPerChat").toFixed(0)} | ${perTurn(middle, last, "d1BytesPerChat").toFixed(0)} | ${perTurn(first, last, "objectBytesPerChat").toFixed(0)} | ${perTurn(middle, last, "objectBytesPerChat").toFixed(0)} |`;
    })
    .join("\n");
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
flattens rather than shrinks. The object's event log (SPEC §13) is bounded by its own rule, 10,000
events or 30 days per session, which these settings do not shorten and a few minutes do not reach: what an
object still gains per turn with retention on is most likely that log (not measured per table here).

${tables}

Bytes per chat turn, per store (whole run; second half, once past every bound):

| run | D1 B/turn | D1 B/turn, 2nd half | object B/turn | object B/turn, 2nd half |
| --- | --- | --- | --- | --- |
${perTurnRows(runs)}

${END}`;
}

/** Rewrites the soak section of docs/benchmarks.md. */
export function writeSoakSection(runs, meta) {
  writeSection(START, END, soakSection(runs, meta));
}
