import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SENT_DEDUPE_WINDOW_MS } from "../../../src/session/store/retention";
import { newCanary, scanObjects, scanShards } from "../../erasure/canary";
import { ADMIN, call, createSpawned, send, sessionPath, settleAll, stub, uid } from "../../support";

// Issue 33: a requester that sent (sessions_send) before it existed as a session holds `sent` records in
// its object, with no session record. They are bounded (pruned by their own due time, the object then
// dropped), deleted by `DELETE /v1/sessions/{key}` of that key, and removed by erasure (SPEC §23).

/** A key never created that sent the canary, keyed, to a child of its own (the `tree` visibility allows it). */
async function requesterThatSent(canary: string) {
  const u = uid();
  const requester = `agent:relay:never-${u}`;
  const child = `agent:relay:never-c-${u}`;
  await createSpawned({ sessionKey: child, agentId: "relay", spawnedBy: requester });
  const sent = await send(requester, {
    sessionKey: child,
    message: `remember ${canary}`,
    idempotencyKey: `k-${u}`,
    timeoutSeconds: 5,
  });
  expect(sent).toMatchObject({ status: "ok" });
  await settleAll([child]);
  return { requester, child };
}

/** The object's storage: its tables (none once wiped), its sent records, its alarm. */
const storageOf = (key: string) =>
  runInDurableObject(stub(key), async (_instance, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray()
      .map((row) => row.name);
    const sent = tables.includes("sent")
      ? state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sent").one().n
      : 0;
    const record = tables.includes("session")
      ? state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM session").one().n
      : 0;
    return { tables: tables.length, sent, record, alarm: await state.storage.getAlarm() };
  });

describe("sent records of a requester never created (SPEC §23)", () => {
  it("are held with no session record, and DELETE of the key removes them, the object left empty", async () => {
    const canary = newCanary();
    const { requester } = await requesterThatSent(canary);
    expect(await storageOf(requester)).toMatchObject({ sent: 1, record: 0 });
    expect(Object.keys(await scanObjects([requester], canary))).toEqual([`${requester} sent`]);

    const deleted = await call("DELETE", sessionPath(requester), { token: ADMIN });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toEqual({ deleted: true });
    expect(await storageOf(requester)).toEqual({ tables: 0, sent: 0, record: 0, alarm: null });
    // Nothing more to delete: the key is not found, and asking leaves no schema behind.
    expect((await call("DELETE", sessionPath(requester), { token: ADMIN })).status).toBe(404);
    expect((await storageOf(requester)).tables).toBe(0);
  });

  it("are erased with ?erase=true: its records counted as sent, no session, its copies erased", async () => {
    const canary = newCanary();
    const { requester, child } = await requesterThatSent(canary);
    const erased = await call<{ erased: Record<string, number> }>(
      "DELETE",
      `${sessionPath(requester)}?erase=true`,
      { token: ADMIN },
    );
    expect(erased.status, erased.text).toBe(200);
    // No session; its one sent record; the child it sent to (spawned by its key) erased with it.
    expect(erased.json.erased).toMatchObject({ sessions: 0, children: 1, sent: 1 });
    await settleAll([child]);
    expect(await scanObjects([requester, child], canary)).toEqual({});
    expect(await scanShards(canary)).toEqual({});
    expect((await storageOf(requester)).tables).toBe(0);
  });

  it("are pruned by their own due time, and the object then holds nothing at all", async () => {
    const canary = newCanary();
    const { requester } = await requesterThatSent(canary);
    // Its sent record is due work of its own (0034): the object has an alarm though it has no session.
    const before = await storageOf(requester);
    expect(before.alarm).toEqual(expect.any(Number));
    // Time passes beyond the dedupe window (the record's age, moved back), then its alarm fires.
    await runInDurableObject(stub(requester), (_instance, state) => {
      state.storage.sql.exec("UPDATE sent SET created_at = created_at - ?", SENT_DEDUPE_WINDOW_MS + 1);
    });
    expect(await runDurableObjectAlarm(stub(requester))).toBe(true);
    expect(await storageOf(requester)).toEqual({ tables: 0, sent: 0, record: 0, alarm: null });
    expect(await scanObjects([requester], canary)).toEqual({});
  });
});
