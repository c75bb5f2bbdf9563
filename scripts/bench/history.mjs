// Scenarios 2 and 6: sessions_history pages and session_status on small and large transcripts, the bare
// SQL baseline on the same object, the JSONL export, and workerd's memory while paging the large transcript.
import { ok } from "./api.mjs";
import { measure, sample } from "./measure.mjs";
import { importTranscript, waitForSearchIndex } from "./seed.mjs";
import { ADMIN, memoryOf, TOKENS } from "./server.mjs";

const historyRequest = (base, sessionKey, limit, offset = 0) =>
  fetch(`${base}/v1/tools/sessions_history`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKENS.main}` },
    body: JSON.stringify({ sessionKey, limit, ...(offset ? { offset } : {}) }),
  });

/** The session whose transcript holds `size` imported messages. */
export const historyKey = (size) => `agent:main:api:history-${size}`;

const statusRequest = (base, sessionKey) =>
  fetch(`${base}/v1/tools/session_status`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKENS.main}` },
    body: JSON.stringify({ sessionKey }),
  });

/** History limit 20 and 200, session_status and the page's floor on the transcript of `key` (`size` messages). */
export async function readsScenario(base, key, size, options, tag = "") {
  const results = [];
  for (const limit of [20, 200]) {
    const timing = await measure(() => ok(historyRequest(base, key, limit)), options);
    results.push({ name: `sessions_history limit ${limit} @${size}${tag}`, size, limit, timing });
  }
  const status = await measure(() => ok(statusRequest(base, key)), options);
  results.push({ name: `session_status @${size}${tag}`, size, status: true, timing: status });
  // The floor under the 200-message page: its stored messages from the object to the client, no tool.
  const page = await measure(
    () => ok(fetch(`${base}/bench/page/${encodeURIComponent(key)}?limit=200`)),
    options,
  );
  results.push({
    name: `baseline: 200 stored messages, object → client @${size}${tag}`,
    size,
    baseline: "page",
    timing: page,
  });
  return results;
}

/** The reads of readsScenario on each transcript size, and the direct SQL read of 200 rows. */
export async function historyScenario(base, sizes, options) {
  const results = [];
  for (const size of sizes) {
    const key = historyKey(size);
    const t0 = performance.now();
    await importTranscript(base, key, size);
    const seeded = (performance.now() - t0) / 1000;
    // Steady state: the import's search backfill done (it shares the object with these reads).
    const indexed = await waitForSearchIndex(base, key);
    console.error(
      `  @${size}: imported in ${seeded.toFixed(0)} s, in the search index ${indexed.toFixed(0)} s later`,
    );
    const reads = await readsScenario(base, key, size, options);
    results.push(...reads.map((row) => ({ ...row, seededSeconds: seeded })));
    const sql = await measure(
      () => ok(fetch(`${base}/bench/sql/${encodeURIComponent(key)}?limit=200`)),
      options,
    );
    results.push({
      name: `baseline: SQL on the object, 200 rows @${size}`,
      size,
      baseline: "sql",
      timing: sql,
    });
  }
  return results;
}

/** JSONL export of a `size`-message transcript: latency per full download. */
export async function exportScenario(base, size, count) {
  const key = `agent:main:api:export-${size}`;
  await importTranscript(base, key, size);
  await waitForSearchIndex(base, key);
  const path = `${base}/v1/sessions/${encodeURIComponent(key)}/transcript.jsonl`;
  let lines = 0;
  const timing = await sample(async () => {
    const t0 = performance.now();
    const text = await (await fetch(path, { headers: { Authorization: `Bearer ${ADMIN}` } })).text();
    lines = text.split("\n").length - 1;
    return performance.now() - t0;
  }, count);
  if (lines !== size) throw new Error(`export returned ${lines} lines, expected ${size}`);
  return { name: `JSONL export @${size}`, size, timing };
}

/** Pages the whole large transcript (limit 200) while sampling workerd's RSS; peak figures in MiB. */
export async function memoryScenario(base, size, workerd) {
  const key = `agent:main:api:history-${size}`;
  const before = memoryOf(workerd);
  let maxRss = before.rssMiB;
  let pages = 0;
  const t0 = performance.now();
  for (let offset = 0; ; pages++) {
    const page = await (await historyRequest(base, key, 200, offset)).json();
    maxRss = Math.max(maxRss, memoryOf(workerd).rssMiB);
    if (!page.hasMore) break;
    offset = page.nextOffset;
  }
  const after = memoryOf(workerd);
  return {
    name: `memory: paging ${size} messages (${pages + 1} pages)`,
    size,
    pages: pages + 1,
    seconds: (performance.now() - t0) / 1000,
    rssBeforeMiB: before.rssMiB,
    rssMaxMiB: maxRss,
    peakHwmMiB: after.peakMiB,
  };
}
