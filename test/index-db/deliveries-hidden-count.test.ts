import { describe, expect, it } from "vitest";
import { deliveryIndexUpsert, type IndexedDelivery } from "../../src/index-db/deliveries";
import type { DeliveryRecord } from "../../src/session/api";
import { ADMIN, AGENT_TOKENS, call, driveUntil, uid } from "../support";
import { shardOf } from "../support/shards";
import { requester, settleAll, spawnOk } from "../support/subagents";

type Page = { count: number; deliveries: DeliveryRecord[]; nextCursor?: string; hiddenByVisibility?: number };
const list = async (query: string, token: string) => {
  const answer = await call<Page>("GET", `/v1/deliveries${query}`, { token });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json;
};

/** An index row as a session's outbox writes it; created at the dawn of time, so it sorts last. */
const row = (agentId: string, target: string, n: number): IndexedDelivery => ({
  deliveryId: `dlv_hidden-${uid()}-${n}`,
  kind: "notice",
  sessionKey: `agent:${agentId}:hidden-${uid()}`,
  agentId,
  target,
  status: "dismissed",
  attempts: 0,
  createdAt: n,
  updatedAt: n,
});

describe("what an agent token's deliveries list leaves out (issue 35)", () => {
  it("counts other agents' records addressed to its sessions, and nothing it does not know of", async () => {
    const query = "?status=dismissed&kind=notice";
    const before = (await list(query, AGENT_TOKENS.ops)).hiddenByVisibility ?? 0;
    const rows = [
      row("research", `agent:ops:main`, 1), // counted: another agent's, to an ops session
      row("main", `agent:ops:watcher-${uid()}`, 2), // counted
      row("ops", `agent:ops:main`, 3), // ops' own: listed, not hidden
      row("ops", `agent:research:main`, 6), // ops' own too (so its list has a second page of 1)
      row("research", `agent:opsx:main`, 4), // another agent's session whose id starts the same
      row("research", "telegram:4711", 5), // a channel post: nothing of ops'
    ];
    // Each in its session's shard, as the session's outbox writes it.
    for (const each of rows) await deliveryIndexUpsert(shardOf(each.sessionKey), each).run();
    try {
      const page = await list(query, AGENT_TOKENS.ops);
      expect(page.hiddenByVisibility).toBe(before + 2);
      expect(page.deliveries.map((record) => record.deliveryId)).toContain(rows[2]?.deliveryId);
      expect(page.deliveries.map((record) => record.deliveryId)).not.toContain(rows[0]?.deliveryId);
      // Other filters count the same way (no record here is an announce).
      expect((await list("?kind=announce&status=dismissed", AGENT_TOKENS.ops)).hiddenByVisibility).toBe(
        undefined,
      );
      // Only on a first page of the whole agent: one session's records are all its own.
      const own = await list(`${query}&sessionKey=${encodeURIComponent("agent:ops:main")}`, AGENT_TOKENS.ops);
      expect(own.hiddenByVisibility).toBeUndefined();
      const paged = await list(`${query}&limit=1`, AGENT_TOKENS.ops);
      expect(paged.hiddenByVisibility).toBe(before + 2);
      expect(paged.nextCursor).toBeDefined();
      const next = await list(`${query}&limit=1&cursor=${paged.nextCursor}`, AGENT_TOKENS.ops);
      expect(next.hiddenByVisibility).toBeUndefined();
      // The operator sees every record: nothing is hidden from it.
      expect((await list(query, ADMIN)).hiddenByVisibility).toBeUndefined();
    } finally {
      for (const each of rows)
        await shardOf(each.sessionKey)
          .prepare("DELETE FROM delivery_index WHERE delivery_id = ?")
          .bind(each.deliveryId)
          .run();
    }
  });

  it("a sub-agent of another agent: its completion is the child's agent's, counted for the requester's", async () => {
    const r = await requester("main", `hid-${uid()}`);
    const before = (await list("?kind=completion", AGENT_TOKENS.main)).hiddenByVisibility ?? 0;
    const { child } = await spawnOk(r, { task: "quick look", agentId: "research" });
    await settleAll([r, child]);
    const record = await driveUntil(
      [r, child],
      async () =>
        (await list(`?sessionKey=${encodeURIComponent(child)}`, ADMIN)).deliveries.find(
          (each) => each.kind === "completion",
        ),
      "the completion's record in the index",
    );
    expect(record).toMatchObject({ sessionKey: child, target: r });
    const mine = await list("?kind=completion", AGENT_TOKENS.main);
    expect(mine.deliveries.map((each) => each.deliveryId)).not.toContain(record.deliveryId);
    expect(mine.hiddenByVisibility).toBeGreaterThanOrEqual(before + 1);
    const theirs = await list(
      `?kind=completion&sessionKey=${encodeURIComponent(child)}`,
      AGENT_TOKENS.research,
    );
    expect(theirs.deliveries.map((each) => each.deliveryId)).toContain(record.deliveryId);
  });
});
