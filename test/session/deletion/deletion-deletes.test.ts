import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  createSession,
  grantFor,
  sendMessage,
  sessionPath,
  stub,
  uid,
  waitRun,
} from "../../support";
import { shards } from "../../support/shards";

/** What a session object's SQLite holds: its schema objects (workerd's own included) and its size. */
const objectStorage = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) => ({
    objects: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master ORDER BY name")
      .toArray()
      .map((row) => row.name),
    bytes: state.storage.sql.databaseSize,
  }));

/**
 * Every row of every D1 table, in every shard, that names one of `canaries` anywhere (the FTS5 tables'
 * own shadow tables are left to the index's optimize: their rows are the external content's).
 */
async function d1RowsNaming(canaries: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const [shard, db] of shards().entries()) {
    const { results: tables } = await db
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all<{ name: string; sql: string | null }>();
    const virtual = tables
      .filter((table) => /VIRTUAL TABLE/i.test(table.sql ?? ""))
      .map((table) => table.name);
    for (const { name } of tables) {
      if (name.startsWith("sqlite_") || name.startsWith("_cf_") || name === "d1_migrations") continue;
      if (virtual.some((base) => name === base || name.startsWith(`${base}_`))) continue;
      const { results } = await db.prepare(`SELECT * FROM "${name}"`).all();
      for (const row of results) {
        const text = JSON.stringify(row);
        if (canaries.some((canary) => text.includes(canary))) found.push(`shard ${shard} ${name}: ${text}`);
      }
    }
  }
  return found;
}

describe("deletion deletes (SPEC §23)", () => {
  it("leaves nothing of the session in D1 and nothing at all in its object's storage", async () => {
    const key = `agent:main:api:deleted-${uid()}`;
    const created = await createSession({ key });
    const runId = await sendMessage(key, `canary-${uid()} please answer`);
    await waitRun(runId);
    await grantFor(key, ["read"]);
    expect(await d1RowsNaming([key, created.sessionId])).not.toEqual([]);
    expect((await objectStorage(key)).objects).toContain("message");

    expect((await call("DELETE", sessionPath(key), { token: ADMIN })).status).toBe(200);

    expect(await d1RowsNaming([key, created.sessionId, runId])).toEqual([]);
    expect(await objectStorage(key)).toEqual({ objects: [], bytes: expect.any(Number) });
    // Asking for it again creates nothing: a probe of a deleted (or never used) key leaves no schema.
    expect((await call("GET", sessionPath(key), { token: ADMIN })).status).toBe(404);
    expect((await objectStorage(key)).objects).toEqual([]);
  });
});
