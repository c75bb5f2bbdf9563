// Seeding: sessions and transcripts through the public API; the 100,000-row index straight into D1's
// local SQLite with `wrangler d1 execute --file` (issue 6 §3 allows it: listing reads only the index).
import { mkdirSync, writeFileSync } from "node:fs";
import { api } from "./api.mjs";
import { ADMIN, wrangler } from "./server.mjs";

const AGENTS = ["main", "research", "ops"];
const KINDS = ["group", "other", "hook", "cron"];
export const LABEL_COUNT = 50;
export const SEARCH_TERM = "zebra";

/** Creates `count` sessions through `POST /v1/sessions`, spread over agents and labels. */
export async function createSessions(base, count, concurrency = 8) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const agent = AGENTS[i % AGENTS.length];
        const created = await api(base, "POST", "/v1/sessions", ADMIN, {
          key: `agent:${agent}:api:bench-${i}`,
          label: `label-${i % LABEL_COUNT}`,
          displayName: i % 100 === 7 ? `Bench ${SEARCH_TERM} ${i}` : `Bench session ${i}`,
        });
        if (created.status !== 201)
          throw new Error(`create ${i}: ${created.status} ${JSON.stringify(created.json)}`);
      }
    }),
  );
}

/** Message `i` of every seeded transcript (ids m-0, m-1, …; user and assistant in turn). */
export const transcriptMessage = (i) => ({
  id: `m-${i}`,
  role: i % 2 === 0 ? "user" : "assistant",
  content: `Message ${i}: the quarterly figures look steady; nothing else to report for this step.`,
  timestamp: 1_700_000_000_000 + i * 1000,
});

/** Imports `count` messages into a session through `POST /v1/sessions/{key}/transcript`, in batches. */
export async function importTranscript(base, sessionKey, count, batch = 5000) {
  const created = await api(base, "POST", "/v1/sessions", ADMIN, { key: sessionKey });
  if (created.status !== 201) throw new Error(`create ${sessionKey}: ${created.status}`);
  const path = `/v1/sessions/${encodeURIComponent(sessionKey)}/transcript`;
  for (let start = 0; start < count; start += batch) {
    const messages = Array.from({ length: Math.min(batch, count - start) }, (_, j) =>
      transcriptMessage(start + j),
    );
    const imported = await api(base, "POST", path, ADMIN, { messages });
    if (imported.status !== 200)
      throw new Error(`import ${sessionKey}: ${imported.status} ${JSON.stringify(imported.json)}`);
  }
}

/**
 * Waits until a session's imported transcript is all in the search index (its outbox adds it in bounded
 * chunks after the import has answered), so that a read measured next is not sharing the object with
 * that backfill. Resolves to the seconds it took.
 */
export async function waitForSearchIndex(base, sessionKey, timeoutMs = 600_000) {
  const t0 = performance.now();
  for (;;) {
    const { backlog } = await (await fetch(`${base}/bench/backlog/${encodeURIComponent(sessionKey)}`)).json();
    if (backlog === 0) return (performance.now() - t0) / 1000;
    if (performance.now() - t0 > timeoutMs) throw new Error(`${sessionKey}: still being indexed for search`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const sqlText = (value) => (value === null ? "NULL" : `'${String(value).replaceAll("'", "''")}'`);

/**
 * Writes `count` index rows (keys `agent:<a>:seed:<i>`, newest first by i) as SQL files of `chunk`
 * rows and runs them with `wrangler d1 execute --local`. Every 100th row is a tree child of
 * `agent:main:main`. Returns the generator so scenarios can name a row at any depth.
 */
export function seedIndex(stateDir, count, now, chunk = 25_000) {
  const row = (i) => {
    const agent = AGENTS[i % AGENTS.length];
    const key = `agent:${agent}:seed:${String(i).padStart(7, "0")}`;
    return { key, agent, updatedAt: now - 60_000 - i * 1000, i };
  };
  mkdirSync(`${stateDir}-sql`, { recursive: true });
  for (let start = 0; start < count; start += chunk) {
    const lines = [];
    for (let i = start; i < Math.min(count, start + chunk); i++) {
      const { key, agent, updatedAt } = row(i);
      const label = `label-${i % LABEL_COUNT}`;
      const name = i % 100 === 7 ? `Seed ${SEARCH_TERM} ${i}` : `Seed session ${i}`;
      const spawnedBy = i % 100 === 3 && agent === "main" ? "agent:main:main" : null;
      const values = [
        key,
        `seed-${i}`,
        agent,
        KINDS[i % KINDS.length],
        "api",
        label,
        name,
        updatedAt,
        updatedAt,
      ];
      lines.push(
        `(${values.map(sqlText).join(",")},${sqlText(spawnedBy)},${spawnedBy ? 1 : 0},${sqlText(`${name} ${label} seed-${i} ${key}`.toLowerCase())},1)`,
      );
    }
    const file = `${stateDir}-sql/index-${start}.sql`;
    const insert =
      "INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, label, display_name, created_at, updated_at, spawned_by, spawn_depth, search_text, version) VALUES";
    // Statements of 200 rows: D1 caps one SQL statement at 100 KB (SQLITE_TOOBIG).
    const statements = [];
    for (let at = 0; at < lines.length; at += 200)
      statements.push(`${insert}\n${lines.slice(at, at + 200).join(",\n")};`);
    writeFileSync(file, `${statements.join("\n")}\n`);
    wrangler(["d1", "execute", "switchboard", "--local", "--persist-to", stateDir, "--file", file]);
  }
  return row;
}
