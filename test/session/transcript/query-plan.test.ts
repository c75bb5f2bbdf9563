import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { applySessionMigrations } from "../../../src/session/schema/migrations";
import { MESSAGE_COUNTS_SQL } from "../../../src/session/transcript/transcript";

describe("the transcript's hot queries", () => {
  it("count messages from the indexes, never by scanning the transcript", async () => {
    const stub = env.SESSION.getByName(`agent:main:plan-${crypto.randomUUID()}`);
    const plan = await runInDurableObject(stub, (_instance, state) => {
      // A fresh object holds no schema until its first use creates it (SPEC §23).
      applySessionMigrations(state.storage.sql);
      return state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${MESSAGE_COUNTS_SQL}`)
        .toArray()
        .map((row) => row.detail);
    });
    expect(plan.filter((detail) => detail.startsWith("SCAN message"))).toEqual([]);
    expect(plan.filter((detail) => detail.startsWith("SEARCH message"))).toHaveLength(2);
  });
});
