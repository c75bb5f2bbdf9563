import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { applySessionMigrations } from "../../../src/session/schema/migrations";
import { appendEvent, systemEvent } from "../../../src/session/store/event-log";
import { createSession, stub, uid } from "../../support";

describe("migration 0022: a child's row gets its spawn's run", () => {
  it("fills run_id from the latest child_spawned event, and adds children known only from one", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:mig-child-${uid()}` })).key;
    const rows = await runInDurableObject(stub(key), (_instance, state) => {
      const sql = state.storage.sql;
      // The object as it was before 0022: a child table without run_id, and spawns only in the log.
      sql.exec("ALTER TABLE child DROP COLUMN run_id");
      sql.exec("DELETE FROM _migrations WHERE id = '0022_child_run'");
      sql.exec("INSERT INTO child (session_key, noted_at) VALUES ('agent:research:subagent:a', 1)");
      const spawned = (child: string, runId: string) =>
        appendEvent(
          sql,
          systemEvent("child_spawned", `spawned ${child}`, {
            runId,
            data: { childSessionKey: child, runId },
          }),
        );
      spawned("agent:research:subagent:a", "run-a1");
      spawned("agent:research:subagent:a", "run-a2");
      spawned("agent:research:subagent:b", "run-b");
      expect(applySessionMigrations(sql)).toBe(1);
      return sql
        .exec<{ session_key: string; run_id: string | null }>(
          "SELECT session_key, run_id FROM child ORDER BY session_key",
        )
        .toArray()
        .map((row) => ({ ...row }));
    });
    expect(rows).toEqual([
      { session_key: "agent:research:subagent:a", run_id: "run-a2" },
      { session_key: "agent:research:subagent:b", run_id: "run-b" },
    ]);
  });
});
