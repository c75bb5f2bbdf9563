import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readRecord, updateRecord } from "../../../src/session/record/record";
import { applySessionMigrations } from "../../../src/session/schema/migrations";
import { writeCreation } from "../../../src/session/writes/writes";

/** Runs `body` on the SQLite of a fresh session object (its schema created as its first use creates it). */
function onFreshObject<T>(body: (state: DurableObjectState) => T): Promise<T> {
  const key = `agent:main:record-${crypto.randomUUID()}`;
  return runInDurableObject(env.SESSION.getByName(key), (_instance, state) => {
    applySessionMigrations(state.storage.sql);
    return body(state);
  });
}

describe("the session record as readRecord returns it (a kept copy, checked against the version)", () => {
  it("reflects every write, however soon after the last read", async () => {
    const labels = await onFreshObject((state) => {
      const sql = state.storage.sql;
      writeCreation(sql, { sessionKey: "agent:main:x", agentId: "main" }, Date.now());
      const seen = [readRecord(sql)?.label];
      updateRecord(sql, { label: "first" });
      seen.push(readRecord(sql)?.label);
      updateRecord(sql, { label: "second" });
      seen.push(readRecord(sql)?.label, readRecord(sql)?.label);
      return seen;
    });
    expect(labels).toEqual([undefined, "first", "second", "second"]);
  });

  it("never serves a record read inside a transaction that was rolled back", async () => {
    const { inside, after } = await onFreshObject((state) => {
      const sql = state.storage.sql;
      writeCreation(sql, { sessionKey: "agent:main:x", agentId: "main", label: "kept" }, Date.now());
      let inside: string | undefined;
      try {
        state.storage.transactionSync(() => {
          updateRecord(sql, { label: "rolled back" });
          inside = readRecord(sql)?.label;
          throw new Error("abort the transaction");
        });
      } catch {}
      return { inside, after: readRecord(sql)?.label };
    });
    expect(inside).toBe("rolled back");
    expect(after).toBe("kept");
  });

  it("a session re-created in the same millisecond gets a newer version and its own record", async () => {
    const { first, second } = await onFreshObject((state) => {
      const sql = state.storage.sql;
      const now = Date.now();
      writeCreation(sql, { sessionKey: "agent:main:x", agentId: "main", label: "old" }, now);
      const first = readRecord(sql);
      writeCreation(sql, { sessionKey: "agent:main:x", agentId: "main", label: "new" }, now);
      return { first, second: readRecord(sql) };
    });
    expect(first?.label).toBe("old");
    expect(second?.label).toBe("new");
    expect(second?.version).toBeGreaterThan(first?.version ?? Number.POSITIVE_INFINITY);
    expect(second?.sessionId).not.toBe(first?.sessionId);
  });

  it("hands out copies: changing a returned record changes nothing stored or kept", async () => {
    const label = await onFreshObject((state) => {
      const sql = state.storage.sql;
      writeCreation(sql, { sessionKey: "agent:main:x", agentId: "main", label: "stored" }, Date.now());
      const record = readRecord(sql);
      if (record) record.label = "changed by a caller";
      return readRecord(sql)?.label;
    });
    expect(label).toBe("stored");
  });
});
