// The costs section of docs/scaling.md (costs.mjs's rows): what each operation costs the platform, and the
// rate one D1 database, one queue and one session object allow for it on Cloudflare's published limits.

import { readFileSync } from "node:fs";
import {
  billedUnits,
  costPerMillion,
  DO_ACTIVE_MS_PER_REQUEST,
  d1Cost,
  monthlyCost,
  PRICES,
  PRICES_READ,
} from "./prices.mjs";
import { writeSection } from "./sections.mjs";

const FILE = "docs/scaling.md";

// Published limits (docs/scaling.md "Limits"): D1 runs one query at a time per database (~1 ms each for
// these short statements → ~1,000 round trips/s); a queue takes 5,000 messages/s; a Durable Object
// ~1,000 requests/s.
const D1_CALLS_PER_SECOND = 1_000;
const QUEUE_MESSAGES_PER_SECOND = 5_000;

const num = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const rate = (limit, perOp) => (perOp > 0 ? Math.floor(limit / perOp).toLocaleString("en-US") : "–");

const usd = (value) =>
  value >= 100 ? `$${Math.round(value).toLocaleString("en-US")}` : `$${value.toFixed(value >= 1 ? 2 : 3)}`;

/** The reference load of docs/scaling.md: one public bot, 10,000 chats × 50 messages a day. */
export const REFERENCE_LOAD = { chats: 10_000, messagesPerChatPerDay: 50, days: 30 };
const TURNS_PER_MONTH = REFERENCE_LOAD.chats * REFERENCE_LOAD.messagesPerChatPerDay * REFERENCE_LOAD.days;
/** Searchable messages a chat turn adds (the user's and the reply), each a search row kept in D1. */
const SEARCHABLE_PER_TURN = 2;
/** Bytes a searchable message takes in D1 when this run did not measure it (BENCH_ONLY=storage, 2026-11-29). */
const SEARCH_BYTES_DEFAULT = 698;
/** Bytes a searchable message took before issue 34's D1 migrations 0016–0020 (full run of 2026-11-28). */
const SEARCH_BYTES_BEFORE = 883;
const D1_DATABASE_GB = 10;

/**
 * "Before" (issue 34): a chat turn as docs/scaling.md's costs table had it on 2026-11-24 — 3 D1 round
 * trips, 22 rows read, 54 rows written, 2 object calls. The parts that table did not count (requests,
 * alarms, CPU) are taken from this run's chat turn, so the comparison is of the index writes alone.
 */
const CHAT_TURN_BEFORE = { d1Calls: 3, d1RowsRead: 22, d1RowsWritten: 54, doCalls: 2, queueMessages: 0 };

const CHAT_TURN = /^costs: chat message/;

/** The reference load's section: the monthly cost and the first limit met, before and after. */
function referenceLoadSection(costs, storage) {
  const chat = costs.find((row) => CHAT_TURN.test(row.name))?.perOp;
  if (!chat) return "The chat turn was not measured in this run: no reference-load figures.";
  const before = { ...chat, ...CHAT_TURN_BEFORE };
  const searchBytes =
    storage.find((row) => row.name.includes("searchable message") && row.count >= 100_000)?.bytesPer ??
    SEARCH_BYTES_DEFAULT;
  const gbADay = (bytes) =>
    (REFERENCE_LOAD.chats * REFERENCE_LOAD.messagesPerChatPerDay * SEARCHABLE_PER_TURN * bytes) / 1e9;
  const gbPerDay = gbADay(searchBytes);
  // D1 storage averaged over the first month (it grows linearly from nothing).
  const averageGb = (bytes) => (gbADay(bytes) * REFERENCE_LOAD.days) / 2;
  const turnsPerSecond = TURNS_PER_MONTH / REFERENCE_LOAD.days / 86_400;
  const line = (label, c, bytes) => {
    const parts = monthlyCost(c, TURNS_PER_MONTH, averageGb(bytes));
    const total = Object.values(parts).reduce((sum, value) => sum + value, 0);
    const units = billedUnits(c);
    return {
      total,
      d1: d1Cost(parts),
      text: `| ${label} | ${num(c.d1Calls)} | ${num(c.d1RowsWritten)} | ${((units.d1RowsWritten * TURNS_PER_MONTH) / 1e6).toLocaleString("en-US", { maximumFractionDigits: 0 })}M | ${usd(parts.d1RowsWritten)} | ${usd(parts.d1RowsRead)} | ${usd(parts.d1Storage)} | ${usd(parts.workerRequests + parts.workerCpuMs)} | ${usd(parts.doRequests + parts.doGbSeconds)} | ${usd(parts.queueOperations)} | ${usd(parts.base)} | **${usd(total)}** | ${Math.floor(1_000 / c.d1Calls).toLocaleString("en-US")} |`,
    };
  };
  const was = line("before (2026-11-24's counts)", before, SEARCH_BYTES_BEFORE);
  const now = line("after (this run's counts)", chat, searchBytes);
  const ratio = now.d1 / was.d1;
  const daysToFull = D1_DATABASE_GB / gbPerDay;
  return `**The reference load**: one agent (a public bot), ${REFERENCE_LOAD.chats.toLocaleString("en-US")} chats × ${REFERENCE_LOAD.messagesPerChatPerDay} messages a day =
${(TURNS_PER_MONTH / REFERENCE_LOAD.days).toLocaleString("en-US")} chat turns a day (${turnsPerSecond.toFixed(1)}/s on average), ${(TURNS_PER_MONTH / 1e6).toFixed(0)}M in a ${REFERENCE_LOAD.days}-day month, each
costed as the table's chat turn; the plan's included amounts subtracted once; D1 storage at its average over
the first month (${SEARCHABLE_PER_TURN} searchable messages a turn × ${Math.round(searchBytes)} bytes = ${gbPerDay.toFixed(2)} GB a day, before: × ${SEARCH_BYTES_BEFORE} bytes,
measured before D1 migrations 0016–0020; the index rows, ~2 KB a chat, are a few MB).

| counts | D1 round trips per turn | rows written per turn | rows written a month | D1 rows written | D1 rows read | D1 storage | Workers | Durable Objects | Queues | plan base | month | turns/s one D1 allows |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${was.text}
${now.text}

- **D1 cost of the reference load**: ${usd(now.d1)} a month after, ${usd(was.d1)} before: ${ratio.toFixed(2)}× (target ≤ 0.25×, issue 34):
  ${ratio <= 0.25 ? "**met**" : "**missed**"}.
- **The first limit met**: not the write rate (${turnsPerSecond.toFixed(1)} turns/s on average, against the
  ${Math.floor(1_000 / chat.d1Calls).toLocaleString("en-US")}/s one database takes at ${num(chat.d1Calls)} round trip(s) a turn; a peak of ten times the average still fits), but
  **one database's ${D1_DATABASE_GB} GB**: the search rows grow ${gbPerDay.toFixed(2)} GB a day, so one database is full in ~${Math.round(daysToFull)} days (before: ~${Math.round(D1_DATABASE_GB / gbADay(SEARCH_BYTES_BEFORE))}).
  With the bot's sessions on one shard (sharding by agent) that is the bot's limit; routed by session key
  (\`index.routeByKey\`) over N shards, ~${Math.round(daysToFull)} × N days, and then the account's 1 TB
  (~${Math.round(1_000 / gbPerDay).toLocaleString("en-US")} days) unless retention (SPEC §23) bounds the search rows.`;
}

/**
 * The storage lines the section has now (a run that measured none, BENCH_ONLY=costs, keeps them), each
 * as a storage row: `- <name>: <bytes> (over <count> rows …`.
 */
function keptStorage() {
  const text = readFileSync(FILE, "utf8");
  const section = text.slice(text.indexOf("<!-- costs -->"), text.indexOf("<!-- /costs -->"));
  return [...section.matchAll(/^- (D1 bytes per [^:]+): ([\d,]+) \(over ([\d,]+) (.*)$/gm)].map((m) => ({
    name: m[1],
    bytesPer: Number(m[2].replaceAll(",", "")),
    count: Number(m[3].replaceAll(",", "")),
    line: m[0],
  }));
}

export function writeCostsSection(rows, run) {
  const costs = rows.filter((row) => row.cost);
  const failed = rows.filter((row) => row.failed && /cost/.test(row.name));
  const measured = rows
    .filter((row) => row.storage)
    .map((row) => ({
      name: row.name.replace(/^storage: /, ""),
      bytesPer: row.bytesPer,
      count: row.count,
      line: `- ${row.name.replace(/^storage: /, "")}: ${Math.round(row.bytesPer).toLocaleString("en-US")} (over ${row.count.toLocaleString("en-US")} rows written directly, file and WAL sizes)`,
    }));
  const storageRows = measured.length > 0 ? measured : keptStorage();
  const storage = storageRows.map((row) => row.line);
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
  const millions = costs.map(({ name, perOp }) => {
    const parts = costPerMillion(perOp);
    const d1 = parts.d1RowsRead + parts.d1RowsWritten;
    const total = Object.values(parts).reduce((sum, value) => sum + value, 0);
    const units = billedUnits(perOp);
    return `| ${name.replace(/^costs: /, "")} | ${num(units.workerRequests)} | ${num(units.workerCpuMs)} | ${num(units.doRequests)} | ${usd(parts.workerRequests + parts.workerCpuMs)} | ${usd(parts.doRequests + parts.doGbSeconds)} | ${usd(d1)} | ${usd(parts.queueOperations)} | **${usd(total)}** |`;
  });
  const prices = [
    `Workers: $${PRICES.workerRequests.usdPerMillion}/million requests, $${PRICES.workerCpuMs.usdPerMillion}/million CPU ms (${PRICES.workerRequests.source})`,
    `Durable Objects: $${PRICES.doRequests.usdPerMillion}/million requests (every RPC call and alarm), $${PRICES.doGbSeconds.usdPerMillion}/million GB-s at 128 MB an object (${PRICES.doRequests.source})`,
    `D1: $${PRICES.d1RowsRead.usdPerMillion}/million rows read, $${PRICES.d1RowsWritten.usdPerMillion}/million rows written, $${PRICES.d1StorageGbMonth.usdPerUnit}/GB-month (${PRICES.d1RowsRead.source})`,
    `Queues: $${PRICES.queueOperations.usdPerMillion}/million operations, three a message (${PRICES.queueOperations.source})`,
  ];
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

**The Cloudflare cost of a million of each operation**, from the counts above and the Workers Paid plan's
published prices (scripts/bench/prices.mjs, read ${PRICES_READ}), at the marginal price (the plan's included
amounts not subtracted): Workers requests are the operation's HTTP requests and its queue consumer
invocations; Workers CPU is an upper bound (the CPU the local workerd used during the operation, its local
D1, queues and the bench's count polls included); Durable Object requests are the calls into objects and
the alarms that ran in them, their duration assumed at ${DO_ACTIVE_MS_PER_REQUEST} ms active per request (not measured
locally); Queue operations are three a message.

| operation | Workers requests | Workers CPU ms (bound) | DO requests | Workers $ | Durable Objects $ | D1 $ | Queues $ | a million cost |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${millions.join("\n")}

Prices used: ${prices.join("; ")}.

${referenceLoadSection(
  costs,
  rows.filter((row) => row.storage),
)}

Storage, from the same run's large phases (the bytes the local D1 files grew by, divided by what was added):
${storage.join("\n") || "- not measured yet (a full run measures it)"}
<!-- /costs -->`;
  writeSection("<!-- costs -->", "<!-- /costs -->", section, FILE);
}
