import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MESSAGE_COUNTS_SQL } from "../../../src/session/transcript/transcript";

describe("the transcript's hot queries", () => {
  it("count messages from the indexes, never by scanning the transcript", async () => {
    const stub = env.SESSION.getByName(`agent:main:plan-${crypto.randomUUID()}`);
    const plan = await runInDurableObject(stub, (_instance, state) =>
      state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${MESSAGE_COUNTS_SQL}`)
        .toArray()
        .map((row) => row.detail),
    );
    expect(plan.filter((detail) => detail.startsWith("SCAN message"))).toEqual([]);
    expect(plan.filter((detail) => detail.startsWith("SEARCH message"))).toHaveLength(2);
  });
});
