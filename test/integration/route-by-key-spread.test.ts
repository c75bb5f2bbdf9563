import { describe, expect, it } from "vitest";
import { createSession, driveUntil, uid } from "../support";
import { agentWide, allPages, everyone, keyIn } from "../support/route-by-key";
import { rowsInEveryShard, shards } from "../support/shards";

// Slow (300 sessions created for real): a project of its own (vitest.config.ts SLOW).

describe("index.routeByKey: 300 sessions of one agent over three shards", () => {
  it("300 sessions of the routed agent land 20–45% in each shard; lists page over all of them", {
    timeout: 120_000,
  }, async () => {
    const u = uid();
    const label = `spread-${u}`;
    const keys = Array.from({ length: 300 }, (_, n) => `agent:public:spread-${u}-${n}`);
    for (let at = 0; at < keys.length; at += 20)
      await Promise.all(
        keys.slice(at, at + 20).map((key) => createSession({ agentId: "public", key, label })),
      );
    const perShard = () =>
      Promise.all(
        shards().map(async (db) => {
          const row = await db
            .prepare("SELECT COUNT(*) AS n FROM session_index WHERE label = ?")
            .bind(label)
            .first<{ n: number }>();
          return row?.n ?? 0;
        }),
      );
    const counts = await driveUntil(
      keys.slice(0, 3),
      async () => {
        const now = await perShard();
        return now.reduce((sum, n) => sum + n, 0) === 300 ? now : undefined;
      },
      "300 index rows",
      60_000,
    );
    for (const n of counts) expect(n / 300).toBeGreaterThanOrEqual(0.2);
    for (const n of counts) expect(n / 300).toBeLessThanOrEqual(0.45);
    // Each row in its key's shard alone.
    for (const key of keys.slice(0, 30))
      expect(
        await rowsInEveryShard("SELECT session_key FROM session_index WHERE session_key = ?", key),
      ).toHaveLength(1);

    const requester = keyIn(0, `lister-${u}`);
    await createSession({ agentId: "public", key: requester });
    // The operator-like list (visibility all) and the agent's own (scope `agents`), 40 a page.
    for (const config of [everyone, agentWide]) {
      const seen = await allPages(config, requester, { label, limit: 40 });
      expect(seen).toHaveLength(300);
      expect(new Set(seen)).toEqual(new Set(keys));
    }
  });
});
