import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionIndexUpsert } from "../../src/index-db/write";
import type { IndexRow } from "../../src/session/api";
import type { SessionObject } from "../../src/session/session-object";
import { landedIndexRow } from "../../src/session/store/index-landed";
import { ADMIN, call, createSession, sessionPath, stub, uid, waitRun } from "../support";
import { shardOf } from "../support/shards";

const row = (key: string, changes: IndexRow = {}): IndexRow => ({
  session_key: key,
  session_id: `id-${key}`,
  agent_id: "main",
  kind: "other",
  channel: "internal",
  label: "before",
  created_at: 1,
  updated_at: 1000,
  search_text: key,
  status: null,
  spawned_by: null,
  version: 1,
  ...changes,
});

describe("the session index row: only what changed is written (SPEC §24)", () => {
  it("sets only the columns that differ from the landed row, and nothing when none does", async () => {
    const key = `agent:main:row-write-${uid()}`;
    const db = shardOf(key);
    const first = row(key);
    await sessionIndexUpsert(db, first).run();
    expect(sessionIndexUpsert(db, { ...first, version: 2 }, first)).toBeUndefined();
    // A column the update does not set keeps what the index holds (moved here behind its back to tell).
    await db.prepare("UPDATE session_index SET kind = 'moved' WHERE session_key = ?").bind(key).run();
    const relabelled = row(key, { label: "after", version: 3 });
    await sessionIndexUpsert(db, relabelled, first)?.run();
    expect(
      await db
        .prepare("SELECT label, kind, version FROM session_index WHERE session_key = ?")
        .bind(key)
        .first(),
    ).toEqual({ label: "after", kind: "moved", version: 3 });
  });

  it("keeps, after a turn, the row that landed: the same as the index's", async () => {
    const key = `agent:relay:row-landed-${uid()}`;
    await createSession({ agentId: "relay", key });
    const sent = await call<{ runId: string }>("POST", sessionPath(key, "/messages"), {
      token: ADMIN,
      body: { text: "hello" },
    });
    await waitRun(sent.json.runId);
    const landed = await runInDurableObject(stub(key), (_: SessionObject, state) =>
      landedIndexRow(state.storage.sql),
    );
    const indexed = await shardOf(key)
      .prepare("SELECT * FROM session_index WHERE session_key = ?")
      .bind(key)
      .first<IndexRow>();
    expect(landed).toBeDefined();
    for (const [column, value] of Object.entries(landed ?? {}))
      expect([column, indexed?.[column]]).toEqual([column, value]);
  });
});
