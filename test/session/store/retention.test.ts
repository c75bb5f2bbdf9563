import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PRUNE_BATCH, pruneSessionTables, SENT_DEDUPE_WINDOW_MS } from "../../../src/session/store/retention";
import { oldestKeptSeq, trimTranscript } from "../../../src/session/transcript/trim";
import { createSession, stub, uid } from "../../support";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 1);

async function freshSession(): Promise<string> {
  const key = `agent:main:retention-${uid()}`;
  await createSession({ agentId: "main", key });
  return key;
}

const count = (sql: SqlStorage, query: string) => sql.exec<{ n: number }>(query).one().n;

describe("the object's own tables stay bounded (SPEC §23)", () => {
  it("prunes ended runs past runRetention with their streams, oldest first, a batch at a time", async () => {
    const key = await freshSession();
    await runInDurableObject(stub(key), (_instance, state) => {
      const { sql } = state.storage;
      const insert = (runId: string, status: string, endedAt: number | null) => {
        sql.exec(
          "INSERT INTO run (run_id, status, timeout_ms, created_at, ended_at, attempts) VALUES (?, ?, 60000, ?, ?, 1)",
          runId,
          status,
          endedAt ?? NOW,
          endedAt,
        );
        sql.exec(
          "INSERT INTO run_event (run_id, seq, kind, occurred_at) VALUES (?, 1, 'run_completed', ?)",
          runId,
          NOW,
        );
      };
      for (let index = 0; index < PRUNE_BATCH + 5; index += 1)
        insert(`old-${index}`, "ok", NOW - 40 * DAY + index);
      insert("recent", "ok", NOW - DAY);
      insert("queued", "queued", null);
      insert("newest-old", "error", NOW - 50 * DAY);
      sql.exec("UPDATE session SET last_run_id = 'newest-old'");

      expect(pruneSessionTables(sql, 30 * DAY, NOW).runs).toBe(PRUNE_BATCH);
      expect(pruneSessionTables(sql, 30 * DAY, NOW).runs).toBe(5);
      expect(pruneSessionTables(sql, 30 * DAY, NOW).runs).toBe(0);
      const left = sql.exec<{ run_id: string }>("SELECT run_id FROM run ORDER BY run_id").toArray();
      // The session's newest run stays whatever its age; a queued or recent one is never touched.
      expect(left.map((row) => row.run_id)).toEqual(["newest-old", "queued", "recent"]);
      expect(count(sql, "SELECT COUNT(*) AS n FROM run_event")).toBe(3);
    });
  });

  it("drops a sent turn's text after the delivery deadline and the record after its dedupe window", async () => {
    const key = await freshSession();
    await runInDurableObject(stub(key), (_instance, state) => {
      const { sql } = state.storage;
      const turn = JSON.stringify({ message: { role: "user", content: "private text" } });
      const insert = (runId: string, createdAt: number) =>
        sql.exec(
          "INSERT INTO sent (run_id, idempotency_key, target_key, turn, created_at) VALUES (?, ?, 'agent:main:x', ?, ?)",
          runId,
          `send:${runId}`,
          turn,
          createdAt,
        );
      insert("fresh", NOW - 60_000);
      insert("delivered", NOW - 2 * 60 * 60_000);
      insert("expired", NOW - SENT_DEDUPE_WINDOW_MS - 1);
      insert("owed", NOW - 2 * 60 * 60_000);
      sql.exec(
        "INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES ('turn', 'send:owed', '{}', ?)",
        NOW,
      );
      const counts = pruneSessionTables(sql, 30 * DAY, NOW);
      expect(counts).toMatchObject({ sent: 1, sentTexts: 2 });
      const rows = sql
        .exec<{ run_id: string; turn: string | null }>("SELECT run_id, turn FROM sent ORDER BY run_id")
        .toArray();
      expect(rows).toEqual([
        { run_id: "delivered", turn: null },
        { run_id: "fresh", turn },
        { run_id: "owed", turn },
      ]);
    });
  });

  it("forgets the admission count of a group with no member left", async () => {
    const key = await freshSession();
    await runInDurableObject(stub(key), (_instance, state) => {
      const { sql } = state.storage;
      sql.exec("INSERT INTO collector_admitted (group_id, admitted) VALUES ('gone', 3), ('live', 1)");
      const columns = sql.exec<{ name: string; notnull: number; dflt_value: string | null }>(
        "SELECT name, \"notnull\", dflt_value FROM pragma_table_info('collector')",
      );
      // A live member row, with whatever its required columns need.
      const required = columns
        .toArray()
        .filter((column) => column.notnull === 1 && column.dflt_value === null);
      const values = required.map((column) =>
        column.name === "group_id" ? "live" : column.name === "seq" ? 1 : `x-${column.name}`,
      );
      sql.exec(
        `INSERT INTO collector (${required.map((column) => column.name).join(", ")}) VALUES (${required.map(() => "?").join(", ")})`,
        ...values,
      );
      expect(pruneSessionTables(sql, 30 * DAY, NOW).collectorCounts).toBe(1);
      expect(sql.exec("SELECT group_id FROM collector_admitted").toArray()).toEqual([{ group_id: "live" }]);
    });
  });
});

describe("maxMessages (SPEC §23)", () => {
  it("trims only what compaction summarized, beyond the newest maxMessages, and owes their search rows", async () => {
    const key = await freshSession();
    await runInDurableObject(stub(key), (_instance, state) => {
      const { sql } = state.storage;
      for (let seq = 1; seq <= 10; seq += 1)
        sql.exec(
          "INSERT INTO message (seq, id, role, chat_seq, timestamp, body) VALUES (?, ?, 'user', ?, ?, '{}')",
          seq,
          `m${seq}`,
          seq,
          NOW,
        );
      expect(trimTranscript(sql, 3, NOW)).toBe(0); // never compacted: nothing is summarized
      sql.exec(
        "INSERT INTO compaction (id, operation_id, through_seq, summary, compacted_at) VALUES (1, 'op', 5, 's', ?)",
        NOW,
      );
      expect(trimTranscript(sql, 3, NOW)).toBe(5); // up to the summary, though 7 are beyond the newest 3
      expect(oldestKeptSeq(sql, "chat_seq")).toBe(6);
      const owed = sql
        .exec<{ payload: string }>("SELECT payload FROM outbox WHERE kind = 'search_forget'")
        .toArray()
        .map((row) => JSON.parse(row.payload));
      expect(owed).toEqual([{ messageIds: ["m1", "m2", "m3", "m4", "m5"] }]);
      sql.exec("UPDATE compaction SET through_seq = 10");
      expect(trimTranscript(sql, 3, NOW)).toBe(2);
      expect(oldestKeptSeq(sql, "seq")).toBe(8);
    });
  });
});
