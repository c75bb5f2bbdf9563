// Transcript search (issue 13): `sessions_search` p50 at two sizes of the D1 search index, next to the
// same Worker's /healthz. The index is grown straight into D1's local SQLite (`wrangler d1 execute`),
// in chunks with progress; the hits are imported through the API, so they take the real write path.
// Its section of docs/benchmarks.md sits between markers, so `BENCH_ONLY=search` rewrites it alone.
import { api, ok, tool } from "./api.mjs";
import { measure } from "./measure.mjs";
import { writeSection } from "./sections.mjs";
import { ADMIN, TOKENS, wrangler } from "./server.mjs";

const START = "<!-- search -->";
const END = "<!-- /search -->";
export const SEARCH_WORD = "heliotrope";
const HITS = 5;
const REQUESTER = "agent:main:main";
const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : "–");

/**
 * Grows the index from `from` to `to` messages that do not hold the query word (1,000 sessions' worth,
 * none of them in the session index), one `wrangler d1 execute` per `chunk` (a recursive CTE: no SQL
 * file, and the FTS triggers index each row as it goes in). Their scope column is one token per session,
 * which no caller's scope names (they are in no caller's scope anyway).
 */
export function seedSearchIndex(stateDir, from, to, log, chunk = 100_000) {
  for (let start = from; start < to; start += chunk) {
    const end = Math.min(to, start + chunk) - 1;
    wrangler([
      "d1",
      "execute",
      "switchboard",
      "--local",
      "--persist-to",
      stateDir,
      "--command",
      `WITH RECURSIVE n(x) AS (SELECT ${start} UNION ALL SELECT x + 1 FROM n WHERE x < ${end})
       INSERT INTO search_message (session_key, session_id, message_id, role, timestamp, text, scope)
       SELECT 'agent:main:seed:' || (x % 1000), 'seed-' || (x % 1000), 'm-' || x,
         CASE x % 2 WHEN 0 THEN 'user' ELSE 'assistant' END, 1700000000000 + x,
         'Message ' || x || ': the quarterly figures look steady; nothing else to report for this step.',
         'seed' || (x % 1000)
       FROM n`,
    ]);
    log(`search index: ${end + 1} of ${to} messages`);
  }
}

/** The requester's session with HITS messages holding the query word, imported (and indexed) through the API. */
export async function importSearchHits(base) {
  await api(base, "POST", "/v1/sessions", ADMIN, { key: REQUESTER });
  const messages = Array.from({ length: HITS }, (_, i) => ({
    id: `hit-${i}`,
    role: i % 2 === 0 ? "user" : "assistant",
    content: `Note ${i}: the ${SEARCH_WORD} shipment arrives on Thursday; check the customs papers.`,
    timestamp: 1_700_000_000_000 + i * 1000,
  }));
  const path = `/v1/sessions/${encodeURIComponent(REQUESTER)}/transcript`;
  const imported = await api(base, "POST", path, ADMIN, { messages });
  if (imported.status !== 200) throw new Error(`import hits: ${imported.status}`);
}

/** `sessions_search` for the word, as main's agent token (visibility `all`): the HITS hits, one page. */
export async function searchScenario(base, size, latency) {
  const args = { query: SEARCH_WORD, limit: 10 };
  const first = await tool(base, TOKENS.main, "sessions_search", args);
  if (first.results?.length !== HITS || first.indexing)
    throw new Error(`expected ${HITS} hits, indexed: ${JSON.stringify(first).slice(0, 300)}`);
  const body = JSON.stringify(args);
  const headers = { Authorization: `Bearer ${TOKENS.main}`, "Content-Type": "application/json" };
  const timing = await measure(
    () => ok(fetch(`${base}/v1/tools/sessions_search`, { method: "POST", headers, body })),
    latency,
  );
  return { name: `sessions_search @${size} indexed messages`, search: size, timing };
}

/** The two targets: the large index within 1.3× of the small one, each within 3× of its /healthz. */
function searchTargets(results) {
  const rows = results.filter((row) => row.search).sort((a, b) => a.search - b.search);
  const healthz = (row) =>
    results.find((entry) => entry.baseline === "healthz" && entry.phase === row.phase)?.timing.p50.median;
  const targets = [];
  if (rows.length === 2) {
    const [small, large] = rows;
    const ratio = large.timing.p50.median / small.timing.p50.median;
    targets.push({
      name: `p50 @${large.search} within 1.3× of @${small.search}`,
      met: ratio <= 1.3,
      figure: `${ms(large.timing.p50.median)} vs ${ms(small.timing.p50.median)} ms: ${ratio.toFixed(2)}×`,
    });
  }
  for (const row of rows) {
    const base = healthz(row);
    const ratio = row.timing.p50.median / base;
    targets.push({
      name: `p50 @${row.search} within 3× of /healthz`,
      met: ratio <= 3,
      figure: `${ms(row.timing.p50.median)} vs ${ms(base)} ms: ${ratio.toFixed(2)}×`,
    });
  }
  return targets;
}

/** The section's markdown, markers included; empty when the run has no search rows. */
export function searchSection(results, run) {
  const rows = results.filter((row) => row.search);
  const failed = results.filter((row) => row.failed && row.name.startsWith("search"));
  if (rows.length === 0 && failed.length === 0) return "";
  const measured = rows
    .map(
      (row) =>
        `| ${row.name} | ${ms(row.timing.p50.median)} (${ms(row.timing.p50.min)}–${ms(row.timing.p50.max)}) | ${ms(row.timing.p90.median)} | ${ms(row.timing.p99.median)} |`,
    )
    .join("\n");
  const targets = searchTargets(results)
    .map((target) => `| ${target.name} | ${target.met ? "met" : "**missed**"} | ${target.figure} |`)
    .join("\n");
  return `${START}
## Transcript search (issue 13)

Run of ${run.date}, scale \`${run.scale}\`. A Worker process of its own (fresh state) over a D1 search index
grown directly (\`wrangler d1 execute --local\`, 100,000 rows a statement, the FTS triggers indexing each)
with messages that do not hold the query word, to ${run.searchSizes.join(" and then ")} messages; its
requester \`agent:main:main\` holds ${HITS} hits, imported through the API (so they take the outbox path).
Each size is measured on its own \`wrangler dev\` (restarted after growing the index), next to that
process's \`GET /healthz\`: \`POST /v1/tools/sessions_search {query, limit: 10}\` as main's agent token
(visibility \`all\`), one at a time. The query's cost follows its matches, not the index size (the test
\`test/index-db/search-cost.test.ts\` checks D1's \`rows_read\` and query plan).

| scenario | p50 ms (min–max) | p90 | p99 |
| --- | --- | --- | --- |
${measured}

| target | | figure |
| --- | --- | --- |
${targets}
${failed.map((row) => `\n- **Failed**: ${row.name}: ${row.failed}`).join("")}
${END}`;
}

/** Replaces the section in docs/benchmarks.md (before the notes marker when it has none yet). */
export function writeSearchSection(results, run) {
  writeSection(START, END, searchSection(results, run));
}

/** For the terminal table. */
export function printSearchTargets(results) {
  for (const target of searchTargets(results))
    console.log(`${target.met ? "MET   " : "MISSED"} ${target.name}: ${target.figure}`);
}
