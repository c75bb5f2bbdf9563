// The storage soak (issue 33, SPEC §23): chats talking without pause long enough to cross every
// retention bound, the bounds made short in the soak agent's own `maintenance` (server.mjs soakAgent)
// instead of waiting days. Every `sampleMs` the daily maintenance pass is made (`POST /v1/maintenance
// enforce`, sped up like the bounds) and its dry-run report read: D1 bytes (the shard's size) and the
// soak agent's object bytes (each session reports its object's size into its index row) per chat, and
// those objects' bytes per table, read from their SQLite files in the state dir (`dbstat`, sqlite3 CLI).
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { api } from "./api.mjs";
import { ADMIN } from "./server.mjs";

/** The bounds of the run with retention on: each is crossed within the first minute. */
export const SOAK_RETENTION = { maxMessages: 20, runRetention: "45s", searchRetention: "45s" };

const expectStatus = (result, status, what) => {
  if (result.status !== status)
    throw new Error(`${what} answered ${result.status}: ${JSON.stringify(result.json)}`);
  return result.json;
};

// Pages per table (its indexes counted with it) of one object file, and whether it is a soak session's.
const TABLES_SQL = `SELECT (SELECT session_key FROM session WHERE id = 1) AS key, COALESCE(m.tbl_name, d.name) AS tbl,
  SUM(d.pgsize) AS bytes FROM dbstat AS d LEFT JOIN sqlite_master AS m ON m.name = d.name GROUP BY tbl`;

/**
 * The soak sessions' object bytes per table, summed over their files (`stateDir`'s session objects),
 * divided by the chats. Read beside the running Worker: sqlite3 reads the committed pages (WAL too).
 */
function objectTablesPerChat(stateDir, chats) {
  const doDir = path.join(stateDir, "v3/do");
  if (!existsSync(doDir)) return {};
  const tables = {};
  for (const dir of readdirSync(doDir).filter((name) => name.endsWith("SessionObject")))
    for (const file of readdirSync(path.join(doDir, dir)).filter((name) => name.endsWith(".sqlite"))) {
      let rows;
      try {
        const out = execFileSync("sqlite3", ["-readonly", "-json", path.join(doDir, dir, file), TABLES_SQL], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        });
        rows = out.trim() ? JSON.parse(out) : [];
      } catch {
        continue; // an object without a session table (never written, or wiped)
      }
      if (!rows[0]?.key?.startsWith("agent:soak:")) continue;
      for (const row of rows) tables[row.tbl] = (tables[row.tbl] ?? 0) + row.bytes / chats;
    }
  return tables;
}

/** One sample: what maintenance reports for the soak agent and the index, after one enforce pass. */
async function sample(base, stateDir, startedAt, turns, chats) {
  expectStatus(await api(base, "POST", "/v1/maintenance", ADMIN, { mode: "enforce" }), 200, "maintenance");
  const report = expectStatus(
    await api(base, "POST", "/v1/maintenance", ADMIN, { mode: "dry-run" }),
    200,
    "maintenance dry-run",
  );
  const agent = report.agents.find((each) => each.agentId === "soak");
  return {
    seconds: (Date.now() - startedAt) / 1000,
    turnsPerChat: turns() / chats,
    d1BytesPerChat: report.shards.reduce((sum, shard) => sum + shard.bytes, 0) / chats,
    objectBytesPerChat: (agent?.objectBytes ?? 0) / chats,
    messagesPerChat: (agent?.messages ?? 0) / chats,
    tablesPerChat: stateDir ? objectTablesPerChat(stateDir, chats) : {},
  };
}

/** One chat: a message, its run awaited, again, until `until`. */
async function chat(base, key, until, count) {
  for (let turn = 1; Date.now() < until; turn += 1) {
    const sent = expectStatus(
      await api(base, "POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, ADMIN, {
        text: `${key} turn ${turn}: a question of the kind a chat asks, with a few words of context.`,
      }),
      202,
      "send",
    );
    const waited = expectStatus(
      await api(base, "POST", `/v1/runs/${sent.runId}/wait`, ADMIN, { timeoutMs: 30_000 }),
      200,
      "wait",
    );
    if (waited.status !== "ok") throw new Error(`run ${sent.runId} ended ${waited.status}`);
    count();
  }
}

/**
 * `chats` sessions of the soak agent talking for `seconds`, sampled every `sampleMs`: the samples, and
 * the turns made.
 */
export async function soakScenario(base, { chats, seconds, sampleMs, stateDir, log }) {
  const keys = Array.from({ length: chats }, (_, n) => `agent:soak:soak-chat-${n}`);
  for (const key of keys)
    expectStatus(await api(base, "POST", "/v1/sessions", ADMIN, { agentId: "soak", key }), 201, "create");
  let turns = 0;
  const startedAt = Date.now();
  const until = startedAt + seconds * 1000;
  const samples = [await sample(base, stateDir, startedAt, () => turns, chats)];
  const talking = Promise.all(keys.map((key) => chat(base, key, until, () => (turns += 1))));
  let done = false;
  talking.finally(() => {
    done = true;
  });
  while (!done) {
    await Promise.race([talking, new Promise((resolve) => setTimeout(resolve, sampleMs))]);
    const row = await sample(base, stateDir, startedAt, () => turns, chats);
    samples.push(row);
    // Each sample as taken, for a look at a run cut short (.wrangler is never committed).
    if (stateDir) appendFileSync(`${stateDir}-samples.jsonl`, `${JSON.stringify(row)}\n`);
    log(
      `soak: ${row.seconds.toFixed(0)} s, ${row.turnsPerChat.toFixed(0)} turns/chat, D1 ${(row.d1BytesPerChat / 1024).toFixed(1)} KiB/chat, objects ${(row.objectBytesPerChat / 1024).toFixed(1)} KiB/chat`,
    );
  }
  await talking;
  return { samples, turns };
}
