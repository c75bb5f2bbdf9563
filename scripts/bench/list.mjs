// Scenario 1: sessions_list through the API, per indexed filter, with D1 rows_read per call from the
// bench route (the same `listSessions` query, same scope and filter, answered with its meta.rows_read).
import { api, encodeCursor, ok } from "./api.mjs";
import { measure } from "./measure.mjs";
import { LABEL_COUNT, SEARCH_TERM } from "./seed.mjs";
import { TOKENS } from "./server.mjs";

const LIMIT = 50;
// The demo configuration (config/demo.json): visibility `all`, agent-to-agent open to every
// agent ("*").
const ALL = { type: "all" };

/** The filters: the API args (undefined: the config's visibility is fixed, so bench route only). */
function filters(deepCursor, now) {
  return [
    { name: "none", args: {}, query: {} },
    { name: "kinds", args: { kinds: ["other"] }, query: { kinds: ["other"] } },
    { name: "agentId", args: { agentId: "research" }, query: { agentId: "research" } },
    { name: "label", args: { label: `label-${7 % LABEL_COUNT}` }, query: { label: "label-7" } },
    { name: "activeMinutes", args: { activeMinutes: 60 }, query: { updatedSince: now - 3_600_000 } },
    { name: "search", args: { search: SEARCH_TERM }, query: { search: SEARCH_TERM } },
    { name: "deep cursor", args: { cursor: encodeCursor(deepCursor) }, query: { cursor: deepCursor } },
    { name: "visibility agent", query: { scope: { type: "agents", agentIds: ["main"] } } },
    {
      name: "visibility tree",
      query: { scope: { type: "tree", sessionKey: "agent:main:main", agentId: "main" } },
    },
  ];
}

/** Runs every filter at the current index size; `label` names the size in the results. */
export async function listScenario(base, size, deepCursor, options) {
  const results = [];
  const now = Date.now();
  for (const filter of filters(deepCursor, now)) {
    const body = { scope: ALL, limit: LIMIT, ...filter.query };
    const read = await api(base, "POST", "/bench/list", undefined, body);
    if (read.status !== 200) throw new Error(`bench list ${filter.name}: ${JSON.stringify(read.json)}`);
    const request = filter.args
      ? () =>
          ok(
            fetch(`${base}/v1/tools/sessions_list`, {
              method: "POST",
              headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKENS.main}` },
              body: JSON.stringify({ limit: LIMIT, ...filter.args }),
            }),
          )
      : () =>
          ok(
            fetch(`${base}/bench/list`, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body: JSON.stringify(body),
            }),
          );
    const timing = await measure(request, options);
    results.push({
      name: `sessions_list ${filter.name} @${size}`,
      filter: filter.name,
      size,
      via: filter.args ? "API" : "bench route (D1 query only)",
      rowsRead: read.json.rowsRead,
      rows: read.json.count,
      timing,
    });
  }
  return results;
}

/** A cursor `depth` rows down the default listing, found by paging the bench route. */
export async function cursorAt(base, depth) {
  let cursor;
  for (let seen = 0; seen < depth; seen += 200) {
    const page = await api(base, "POST", "/bench/list", undefined, {
      scope: ALL,
      limit: Math.min(200, depth - seen),
      ...(cursor ? { cursor } : {}),
    });
    cursor = page.json.nextCursor ?? cursor;
  }
  return cursor;
}

/** Waits until the index lists at least `count` sessions (index rows arrive through the outbox). */
export async function waitForIndex(base, count) {
  for (let tries = 0; tries < 600; tries++) {
    let listed = 0;
    let cursor;
    do {
      const page = await api(base, "POST", "/bench/list", undefined, {
        scope: ALL,
        limit: 200,
        ...(cursor ? { cursor } : {}),
      });
      listed += page.json.count;
      cursor = page.json.nextCursor;
    } while (cursor && listed < count);
    if (listed >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the index never reached ${count} sessions`);
}
