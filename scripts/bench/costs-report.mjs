// The costs section of docs/scaling.md (costs.mjs's rows): what each operation costs the platform, and the
// rate one D1 database, one queue and one session object allow for it on Cloudflare's published limits.
import { writeSection } from "./sections.mjs";

// Published limits (docs/scaling.md "Limits"): D1 runs one query at a time per database (~1 ms each for
// these short statements → ~1,000 round trips/s); a queue takes 5,000 messages/s; a Durable Object
// ~1,000 requests/s.
const D1_CALLS_PER_SECOND = 1_000;
const QUEUE_MESSAGES_PER_SECOND = 5_000;

const num = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const rate = (limit, perOp) => (perOp > 0 ? Math.floor(limit / perOp).toLocaleString("en-US") : "–");

export function writeCostsSection(rows, run) {
  const costs = rows.filter((row) => row.cost);
  const failed = rows.filter((row) => row.failed && /cost/.test(row.name));
  const storage = rows
    .filter((row) => row.storage)
    .map(
      (row) =>
        `- ${row.name.replace(/^storage: /, "")}: ${Math.round(row.bytesPer).toLocaleString("en-US")} (over ${row.count.toLocaleString("en-US")} rows written directly, file and WAL sizes)`,
    );
  const lines = costs.map(({ name, perOp: c }) =>
    [
      name.replace(/^costs: /, ""),
      num(c.d1Calls),
      num(c.d1Statements),
      num(c.d1Writes),
      num(c.d1RowsRead),
      num(c.d1RowsWritten),
      num(c.doCalls),
      num(c.queueMessages),
      rate(D1_CALLS_PER_SECOND, c.d1Calls),
      rate(QUEUE_MESSAGES_PER_SECOND, c.queueMessages),
    ].join(" | "),
  );
  const section = `<!-- costs -->
Measured by \`npm run bench\` (scripts/bench/costs.mjs) on ${run.date}: each operation ${run.times} times on a
Worker whose bindings are counted (scripts/bench/counting.ts: every D1 round trip, statement and row, every
call into a session object, every Queue message, in the Worker, the objects and the queue consumer alike),
each until its deferred work has ended (the counts stop moving for 1.5 s), divided by ${run.times}. One index
database (no shards).

| operation | D1 round trips | D1 statements | D1 writes | rows read | rows written | DO calls | Queue messages | ops/s one D1 allows | ops/s one queue allows |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${lines.map((line) => `| ${line} |`).join("\n")}
${failed.map((row) => `\n- **Failed**: ${row.name}: ${row.failed}`).join("")}

Storage, from the same run's large phases (the bytes the local D1 files grew by, divided by what was added):
${storage.join("\n") || "- not measured in this run (BENCH_ONLY=costs)"}
<!-- /costs -->`;
  writeSection("<!-- costs -->", "<!-- /costs -->", section, "docs/scaling.md");
}
