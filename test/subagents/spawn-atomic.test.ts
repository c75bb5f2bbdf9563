import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countActiveChildren } from "../../src/index-db/lookup";
import type { SessionApi } from "../../src/session/api";
import { sessionApi } from "../../src/session/client";
import { toolContext } from "../../src/tools/context";
import { executeToolCall } from "../../src/tools/invoke";
import type { ToolContext } from "../../src/tools/types";
import { createSession, requesterFor, uid, workerConfig } from "../support";
import { rowsInEveryShard, shards } from "../support/shards";

/** A session stub whose process dies after `create` would have returned: any later call throws. */
function cutAfterCreate(stub: SessionApi): SessionApi {
  return new Proxy(stub, {
    get(object, property) {
      if (property === "enqueueTurn") return async () => Promise.reject(new Error("process killed"));
      const value: unknown = Reflect.get(object, property);
      // RPC stubs answer any property as a remote method (`bind` too): call through, never touch it.
      return typeof value === "function" ? (...args: unknown[]) => Reflect.apply(value, object, args) : value;
    },
  });
}

/** The children a session spawned, from the index, with how many runs each has. */
async function childrenWithRuns(requesterKey: string): Promise<{ key: string; runs: number }[]> {
  const results = await rowsInEveryShard<{ session_key: string }>(
    "SELECT session_key FROM session_index WHERE spawned_by = ?",
    requesterKey,
  );
  return Promise.all(
    results.map(async ({ session_key: key }) => ({
      key,
      runs: await runInDurableObject(env.SESSION.getByName(key), (_instance, state) =>
        Number(state.storage.sql.exec("SELECT COUNT(*) AS n FROM run").one().n),
      ),
    })),
  );
}

describe("a spawn is one call to the child's object (issue 17, item 3)", () => {
  it("a process killed right after the child is created never leaves a child without its run", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:atomic-${uid()}` })).key;
    const base = toolContext(env, workerConfig(), requesterFor(key));
    const ctx: ToolContext = {
      ...base,
      session: (sessionKey) =>
        sessionKey === key ? base.session(sessionKey) : cutAfterCreate(base.session(sessionKey)),
    };
    const spawned = await executeToolCall(ctx, "sessions_spawn", { task: "count the widgets" });
    expect(spawned).toMatchObject({ ok: true, details: { status: "accepted" } });
    const children = await childrenWithRuns(key);
    expect(children).toHaveLength(1);
    expect(children[0]?.runs).toBe(1);
  });

  it("a forked child gets the transcript and its task in the same write", async () => {
    const key = (await createSession({ agentId: "main", key: `agent:main:atomic-${uid()}` })).key;
    await base(key).importMessages([
      { id: "f1", role: "user", content: "remember the blue door", timestamp: 1_763_700_000_000 },
    ]);
    const spawned = await executeToolCall(
      toolContext(env, workerConfig(), requesterFor(key)),
      "sessions_spawn",
      {
        task: "which door?",
        context: "fork",
      },
    );
    if (!spawned.ok) throw new Error(spawned.message);
    const childKey = String((spawned.details as { childSessionKey: string }).childSessionKey);
    const bodies = await runInDurableObject(env.SESSION.getByName(childKey), (_instance, state) =>
      state.storage.sql
        .exec<{ id: string }>("SELECT id FROM message ORDER BY seq")
        .toArray()
        .map((row) => row.id),
    );
    // The forked message, then the task; the child's own reply may already follow them.
    expect(bodies.slice(0, 2)).toEqual(["f1", `in:${(spawned.details as { runId: string }).runId}`]);
  });
});

const base = (key: string) => toolContext(env, workerConfig(), requesterFor(key)).session(key);

describe("a child whose first run never arrived fails itself by alarm (issue 17, item 3)", () => {
  it("a minute after its creation, its alarm marks it failed, and it no longer holds a slot", async () => {
    const requester = (await createSession({ agentId: "main", key: `agent:main:orphan-${uid()}` })).key;
    const childKey = `agent:main:subagent:${crypto.randomUUID()}`;
    // What the old two-call spawn left behind when cut between its calls: the child, and no run.
    const created = await sessionApi(env.SESSION, childKey).create({
      sessionKey: childKey,
      agentId: "main",
      spawnedBy: requester,
      spawnDepth: 1,
      spawn: { requesterKey: requester, task: "lost", mode: "run", cleanup: "keep", archiveAfterMinutes: 60 },
    });
    expect(created.ok).toBe(true);
    const active = () => countActiveChildren(shards(), requester);
    expect(await active()).toBe(1);
    const alarmAt = await runInDurableObject(env.SESSION.getByName(childKey), (_instance, state) => {
      // A minute has passed.
      state.storage.sql.exec("UPDATE session SET created_at = created_at - 60000, version = version + 1");
      return state.storage.getAlarm();
    });
    expect(alarmAt).not.toBeNull();
    await runDurableObjectAlarm(env.SESSION.getByName(childKey));
    expect(await active()).toBe(0);
    const row = await sessionApi(env.SESSION, childKey).describe();
    expect(row).toMatchObject({ ok: true, value: { status: "failed", abortedLastRun: true } });
  });
});
