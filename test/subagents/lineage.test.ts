import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { stub } from "../support";
import { requester, spawnOk } from "../support/subagents";

/** The lineage a spawned session keeps (its requester's requesters: where a completion goes if its requester is gone). */
function lineageOf(key: string): Promise<unknown> {
  return runInDurableObject(stub(key), (_instance, state) => {
    const row = state.storage.sql.exec<{ lineage: string | null }>("SELECT lineage FROM session").one();
    return row.lineage === null ? [] : JSON.parse(row.lineage);
  });
}

describe("a spawned session's lineage", () => {
  it("is empty under a top-level requester, and names the requesters above a sub-agent's child", async () => {
    const top = await requester("boss", "lineage");
    const { child } = await spawnOk(top, { task: "plan", agentId: "worker" });
    expect(await lineageOf(child)).toEqual([]);
    const { child: grandchild } = await spawnOk(child, { task: "part of the plan" });
    expect(await lineageOf(grandchild)).toEqual([top]);
  });
});
