import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Alarm } from "../../../src/session/alarm";
import { Outbox } from "../../../src/session/outbox/outbox";
import { addToOutbox } from "../../../src/session/store/outbox-store";
import { createSession, stub, uid } from "../../support";

/** An Outbox of the session's own storage, counting how often it says the session was removed. */
async function passCounting(key: string, owe: (sql: SqlStorage) => void): Promise<number> {
  return runInDurableObject(stub(key), async (_instance, state) => {
    let removed = 0;
    const outbox = new Outbox(
      state.storage,
      () => env,
      new Alarm(state.storage),
      () => {},
      () => removed++,
      () => {},
    );
    state.storage.transactionSync(() => owe(state.storage.sql));
    await outbox.flush();
    return removed;
  });
}

// Parts deliver through the outbox directly; the one case that reaches the runs (a pass that removed the
// session must stop them) is the outbox's own path, not a check every caller repeats (issue 29, item 2).
describe("a delivery pass that removes the session", () => {
  it("tells the object once, so its runs stop", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:removed-${uid()}` })).key;
    expect(await passCounting(key, (sql) => addToOutbox(sql, "remove_session", "remove:r1", {}))).toBe(1);
  });

  it("says nothing after a pass that leaves it in place", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:kept-${uid()}` })).key;
    const noted = (sql: SqlStorage) =>
      addToOutbox(sql, "child_created", "child_created", { parentKey: key, childKey: `${key}:x` });
    expect(await passCounting(key, noted)).toBe(0);
  });
});
