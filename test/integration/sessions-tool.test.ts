import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  type ApiError,
  answerDeferred,
  call,
  callTool,
  createSession,
  createSpawned,
  driveUntil,
  type Invoked,
  keysOf,
  nth,
  type SessionRow,
  sendMessage,
  sessionPath,
  stub,
  tool,
  uid,
  webhookPosts,
} from "../support";

/** A requester and a child it spawned (visible to it under `tree`). */
async function family(name: string) {
  const requester = `agent:main:${name}-${uid()}`;
  await createSession({ agentId: "main", key: requester });
  const child = await createSpawned({
    sessionKey: `agent:main:api:${name}-child-${uid()}`,
    agentId: "main",
    spawnedBy: requester,
  });
  return { requester, child };
}

const sessions = (requester: string, args: Record<string, unknown>) => tool("sessions", requester, args);

async function row(key: string): Promise<SessionRow> {
  const got = await call<SessionRow>("GET", sessionPath(key), { token: ADMIN });
  expect(got.status, got.text).toBe(200);
  return got.json;
}

describe("sessions tool: patch (SPEC §17)", () => {
  it("patches label, displayName, pinned, model and thinkingLevel; 'default' clears the model; bad input changes nothing", async () => {
    const { requester, child } = await family("patch");
    const patch = { action: "patch", sessionKey: child.key };
    expect(
      await sessions(requester, {
        ...patch,
        label: "ops",
        display_name: "Ops room",
        pinned: true,
        model: "scripted/research",
        thinkingLevel: "high",
      }),
    ).toEqual({
      status: "updated",
      sessionKey: child.key,
      updated: ["label", "displayName", "pinned", "model", "thinkingLevel"],
    });
    expect(await row(child.key)).toMatchObject({
      label: "ops",
      displayName: "Ops room",
      pinned: true,
      model: "scripted/research",
      thinkingLevel: "high",
      updatedAt: child.updatedAt,
    });
    expect(await sessions(requester, { ...patch, model: "default", pinned: false, label: null })).toEqual({
      status: "updated",
      sessionKey: child.key,
      updated: ["label", "pinned", "model"],
    });
    const cleared = await row(child.key);
    expect(cleared.model).toBe("scripted/echo");
    expect(cleared.pinned).toBe(false);
    expect(cleared).not.toHaveProperty("label");

    // No field: an input error, before any storage, in OpenClaw's words.
    const none = await callTool<ApiError>("sessions", requester, patch);
    expect(none.status).toBe(400);
    expect(none.json.error).toEqual({ code: "bad_request", message: "Patch setting required" });
    expect(await sessions(requester, { ...patch, model: "gpt-nope" })).toEqual({
      status: "error",
      error: expect.stringMatching(/^Unknown model "gpt-nope"\. Configured models: /),
    });
    expect(await sessions(requester, { ...patch, thinkingLevel: "very\nhigh" })).toEqual({
      status: "error",
      error: 'Invalid thinking "very\nhigh"; use one of off, minimal, low, medium, high, xhigh.',
    });
    // No sendPolicy here: that override stays operator-only (PATCH /v1/sessions/{key}).
    const policy = await callTool<ApiError>("sessions", requester, { ...patch, sendPolicy: "allow" });
    expect(policy.status).toBe(400);
    expect(policy.json.error).toEqual({ code: "bad_request", message: "unknown field sendPolicy" });
    const missing = await callTool<ApiError>("sessions", requester, { sessionKey: child.key, label: "x" });
    expect(missing.json.error).toEqual({ code: "bad_request", message: "action required" });
    expect(await row(child.key)).toEqual(cleared);
  });

  it("is refused for a session the requester cannot see (status visibility)", async () => {
    const { child } = await family("hidden");
    const stranger = `agent:main:stranger-${uid()}`;
    await createSession({ agentId: "main", key: stranger });
    expect(await sessions(stranger, { action: "patch", sessionKey: child.key, label: "mine" })).toEqual({
      status: "forbidden",
      error: expect.stringContaining("tools.sessions.visibility"),
    });
    expect(await row(child.key)).not.toHaveProperty("label");
  });
});

describe("sessions tool: archive and delete (SPEC §17)", () => {
  it("needs expectedSessionId for another session, refuses a stale one, archives, unarchives and deletes", async () => {
    const { requester, child } = await family("life");
    const target = { sessionKey: child.key };
    const IDENTITY = "Session lifecycle action requires a durable session identity";
    expect(await sessions(requester, { action: "patch", ...target, archived: true })).toEqual({
      status: "error",
      error: IDENTITY,
    });
    expect(await sessions(requester, { action: "delete", ...target })).toEqual({
      status: "error",
      error: IDENTITY,
    });

    // The key re-created: the sessionId the caller saw names the older session.
    const deleted = await call("DELETE", sessionPath(child.key), { token: ADMIN });
    expect(deleted.status).toBe(200);
    const again = await createSpawned({ sessionKey: child.key, agentId: "main", spawnedBy: requester });
    expect(again.sessionId).not.toBe(child.sessionId);
    const stale = { ...target, expectedSessionId: child.sessionId };
    const changed = { status: "error", error: `Session ${child.key} changed before patch. Retry.` };
    expect(await sessions(requester, { action: "patch", ...stale, archived: true })).toEqual(changed);
    expect(await sessions(requester, { action: "delete", ...stale })).toEqual(changed);
    expect(await sessions(requester, { action: "patch", ...stale, label: "late" })).toEqual(changed);

    const current = { ...target, expectedSessionId: again.sessionId };
    expect(await sessions(requester, { action: "patch", ...current, archived: true })).toEqual({
      status: "updated",
      sessionKey: child.key,
      updated: ["archived"],
    });
    expect(keysOf(await tool("sessions_list", requester))).not.toContain(child.key);
    expect(await sessions(requester, { action: "patch", ...current, archived: false })).toMatchObject({
      status: "updated",
    });
    expect(keysOf(await tool("sessions_list", requester))).toContain(child.key);

    expect(await sessions(requester, { action: "delete", ...current })).toEqual({
      status: "deleted",
      sessionKey: child.key,
    });
    expect(keysOf(await tool("sessions_list", requester, { archived: "all" }))).toEqual([requester]);
    expect((await call("GET", sessionPath(child.key), { token: ADMIN })).status).toBe(404);
  });

  it("the caller's own session: never deleted; archived at once without a run, or after the run in flight", async () => {
    const own = `agent:main:own-${uid()}`;
    await createSession({ agentId: "main", key: own });
    const refused = { status: "error", error: "Cannot delete the session running this tool" };
    expect(await sessions(own, { action: "delete" })).toEqual(refused);
    expect(await sessions(own, { action: "delete", sessionKey: own })).toEqual(refused);
    // Its own id is the default identity.
    expect(await sessions(own, { action: "patch", archived: true })).toEqual({
      status: "updated",
      sessionKey: own,
      updated: ["archived"],
    });
    expect(await row(own)).toMatchObject({ archived: true });

    // A run token's own session, its run waiting on its (webhook) agent: archived once the run ends.
    const key = `agent:hook-async-rec:self-${uid()}`;
    await createSession({ agentId: "hook-async-rec", key });
    await sendMessage(key, "archive yourself");
    const post = await driveUntil(
      [key],
      async () => (await webhookPosts("hook-async-rec", key))[0],
      "the run",
    );
    const invoked = await call<Invoked<"sessions">>("POST", "/tools/invoke", {
      token: post.runToken,
      body: { tool: "sessions", args: { action: "patch", archived: true } },
    });
    expect(invoked.status, invoked.text).toBe(200);
    expect(invoked.json.result.details).toEqual({
      status: "scheduled",
      sessionKey: key,
      message: "Session will be archived after the current agent run finishes.",
    });
    expect((await row(key)).archived).toBe(false);
    // While the run waits for its agent, the alarm is due at the run's deadline, not at once over and over.
    const due = await runInDurableObject(stub(key), (_instance, state) =>
      state.storage.sql
        .exec<{ due: number; deadline: number }>(
          "SELECT (SELECT MIN(due_at) FROM due_work) AS due, (SELECT deadline_at FROM run WHERE status = 'running') AS deadline",
        )
        .one(),
    );
    expect(due.due).toBe(due.deadline);
    await answerDeferred(key, "done");
    // Until the index has it: no alarm due can still mean one running (its index write in flight).
    const archived = await driveUntil(
      [key],
      async () => {
        const listed = await tool("sessions_list", key, { archived: true });
        return listed.sessions.length > 0 ? listed : undefined;
      },
      "the archived session in the list",
    );
    expect(nth(archived.sessions, 0)).toMatchObject({ key, archived: true, status: "done" });
  });
});
