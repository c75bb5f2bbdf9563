import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  createSession,
  createSpawned,
  send,
  sessionPath,
  settleAll,
  spawnOk,
  stub,
  uid,
} from "../../support";

// Issue 33: a deleted session's cursors in the sessions it watched go with its deletion, at once (its
// outbox's `unwatch` entries, delivered before its storage is wiped), not at their next notice (SPEC §23).

/** A table's rows in a session's object (none once its storage is gone). */
const rows = (key: string, query: string) =>
  runInDurableObject(stub(key), (_instance, state) => state.storage.sql.exec(query).toArray());

const deleteSession = (key: string) => call("DELETE", sessionPath(key), { token: ADMIN });

describe("watchers of a deleted session (SPEC §23)", () => {
  it("a session it watched through sessions_send drops its cursor when it is deleted", async () => {
    const u = uid();
    const watcher = `agent:relay:dw-w-${u}`;
    const watched = `agent:relay:dw-t-${u}`;
    await createSession({ agentId: "relay", key: watcher });
    // A child of the watcher, so the `tree` visibility lets it send there.
    await createSpawned({ sessionKey: watched, agentId: "relay", spawnedBy: watcher });
    const sent = await send(watcher, {
      sessionKey: watched,
      message: "keep me posted",
      watch: true,
      timeoutSeconds: 0,
    });
    expect(sent).toMatchObject({ status: "accepted", watched: true });
    await settleAll([watcher, watched]);
    // Both sides know of the watch: the cursor there, the watcher's own record of it here.
    expect(await rows(watched, "SELECT watcher_key FROM watcher")).toEqual([{ watcher_key: watcher }]);
    expect(await rows(watcher, "SELECT target_key FROM watching")).toEqual([{ target_key: watched }]);

    expect((await deleteSession(watcher)).status).toBe(200);
    // At once: no notice had to fail first.
    expect(await rows(watched, "SELECT watcher_key FROM watcher")).toEqual([]);
    expect(await rows(watched, "SELECT dedupe_key FROM outbox WHERE kind = 'watch_notice'")).toEqual([]);
  });

  it("a child it spawned (watched by its requester from the spawn) drops the requester's cursor", async () => {
    const requester = `agent:main:dw-r-${uid()}`;
    await createSession({ agentId: "main", key: requester });
    const { child } = await spawnOk(requester, { task: "look into the weather", agentId: "research" });
    await settleAll([requester, child]);
    expect(await rows(child, "SELECT watcher_key FROM watcher")).toEqual([{ watcher_key: requester }]);

    expect((await deleteSession(requester)).status).toBe(200);
    expect(await rows(child, "SELECT watcher_key FROM watcher")).toEqual([]);
  });
});
