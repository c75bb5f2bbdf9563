import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  callTool,
  createSession,
  drive,
  driveUntil,
  importMessages,
  msg,
  openStream,
  runStarted,
  sendMessage,
  session,
  sessionPath,
  stub,
  tool,
  uid,
  waitRun,
} from "../../support";

/** The session's kept events after `since`, straight from its object. */
async function changes(key: string, since = 0) {
  const answer = await session(key).changes(since);
  if (!answer.ok) throw new Error(answer.message);
  return answer.value;
}

describe("the session event log (SPEC §13)", () => {
  it("writes each kind with its change, once, with dense seq and the actor of each", async () => {
    const key = `agent:research:ev-${uid()}`;
    await createSession({ agentId: "research", key });
    const runId = await sendMessage(key, "hello there");
    expect((await waitRun(runId)).status).toBe("ok");
    await session(key).patch({ label: `ev-${uid()}` });
    await session(key).patch({ archived: true });
    await session(key).patch({ archived: false });
    // A no-op repeat of the run's end, as a resumed object would attempt, writes nothing more.
    await session(key).getRun(runId);
    const { events, stateVersion, truncated, historyGap, earliestAvailableSequence } = await changes(key);
    expect(events.map((event) => [event.seq, event.kind, event.actor.type])).toEqual([
      [1, "created", "system"],
      [2, "message", "human"],
      [3, "run_queued", "system"],
      [4, "run_started", "system"],
      [5, "message", "system"],
      [6, "run_completed", "system"],
      [7, "patched", "system"],
      [8, "archived", "system"],
      [9, "restored", "system"],
    ]);
    expect({ stateVersion, truncated, historyGap, earliestAvailableSequence }).toEqual({
      stateVersion: 9,
      truncated: false,
      historyGap: false,
      earliestAvailableSequence: 1,
    });
    expect(events[1]).toMatchObject({
      runId,
      data: { role: "user", messageId: `in:${runId}`, provenance: { kind: "external_user" } },
    });
    expect(events[3]?.runId).toBe(runId);
    expect(events[6]?.data).toEqual({ fields: ["label"] });
    for (const event of events) expect(event.occurredAt).toEqual(expect.any(Number));
  });

  it("logs a spawn and the child's completion in the requester, and a killed run's outcome", async () => {
    const parent = `agent:main:spl-${uid()}`;
    await createSession({ agentId: "main", key: parent });
    const spawned = await tool("sessions_spawn", parent, { task: "look around", agentId: "research" });
    const { childSessionKey, runId } = spawned as unknown as { childSessionKey: string; runId: string };
    const completed = await driveUntil(
      [childSessionKey, parent],
      async () => {
        const { events } = await changes(parent);
        return events.some((event) => event.kind === "child_completed") ? events : undefined;
      },
      "the completion in the requester",
    );
    expect(completed.find((event) => event.kind === "child_spawned")).toMatchObject({
      runId,
      data: { childSessionKey, runId },
    });
    const index = completed.findIndex((event) => event.kind === "child_completed");
    expect(completed[index]?.data).toEqual({ childSessionKey });
    expect(completed[index + 1]).toMatchObject({
      kind: "message",
      data: { provenance: { kind: "subagent_completion" } },
    });
    // The child's creation told it again (its outbox retried): nothing is recorded twice.
    expect(await session(parent).childCreated(childSessionKey, runId)).toEqual({
      ok: true,
      value: { recorded: false, sessionId: expect.any(String) },
    });
    expect(completed.filter((event) => event.kind === "child_spawned")).toHaveLength(1);

    const slow = `agent:model-slow:kill-${uid()}`;
    await createSession({ agentId: "model-slow", key: slow });
    const killed = await sendMessage(slow, "take your time");
    await runStarted(killed);
    await session(slow).kill();
    const ends = (await changes(slow)).events.filter(
      (event) => event.runId === killed && event.kind.startsWith("run_"),
    );
    expect(ends.map((event) => [event.kind, event.data?.outcome])).toEqual([
      ["run_queued", undefined],
      ["run_started", undefined],
      ["run_failed", "killed"],
    ]);
  });

  it("puts stateVersion on GET /v1/sessions/{key}, the sessions_list row and session_status", async () => {
    const key = `agent:research:ver-${uid()}`;
    await createSession({ agentId: "research", key });
    expect((await waitRun(await sendMessage(key, "count me"))).status).toBe("ok");
    await drive([key]);
    const { stateVersion } = await changes(key);
    expect(stateVersion).toBe(6);
    const described = await call<{ stateVersion?: number }>("GET", sessionPath(key), { token: ADMIN });
    expect(described.json.stateVersion).toBe(stateVersion);
    const listed = await tool("sessions_list", key, { search: key.split(":")[2] });
    expect(listed.sessions.find((row) => row.key === key)?.stateVersion).toBe(stateVersion);
    const status = await tool("session_status", key, { changesSince: 4 });
    expect(status).toMatchObject({ stateVersion, stateChanges: { truncated: false, historyGap: false } });
    const { stateChanges, statusText } = status as unknown as {
      stateChanges: { events: { seq: number; kind: string }[] };
      statusText: string;
    };
    expect(stateChanges.events.map((event) => [event.seq, event.kind])).toEqual([
      [5, "message"],
      [6, "run_completed"],
    ]);
    expect(statusText.split("\n").at(-1)).toBe("State: v6, 2 changes since v4");
  });

  it("answers at most 200 events per changesSince, says so, and refuses a cursor it never gave", async () => {
    const key = `agent:research:many-${uid()}`;
    await createSession({ agentId: "research", key });
    await importMessages(
      key,
      Array.from({ length: 250 }, (_, index) =>
        msg(`m${index}`, "user", `line ${index}`, 1_763_700_000_000 + index),
      ),
    );
    const first = await changes(key, 0);
    expect(first.events).toHaveLength(200);
    expect(first.events.at(-1)?.seq).toBe(200);
    expect(first.truncated).toBe(true);
    const rest = await changes(key, 200);
    expect(rest.events.map((event) => event.seq)).toEqual(
      Array.from({ length: 51 }, (_, index) => 201 + index),
    );
    expect(rest.truncated).toBe(false);
    for (const [changesSince, field] of [
      [-1, "changesSince"],
      [1.5, "changesSince"],
      [252, "changesSince: 252 is beyond the session's stateVersion (251)"],
    ] as const) {
      const refused = await callTool<{ error: { message: string } }>("session_status", key, { changesSince });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.json.error.message).toContain(field);
    }
  });

  it("reports a gap once events were pruned, in changesSince and as a stream's first event", async () => {
    const key = `agent:research:gap-${uid()}`;
    await createSession({ agentId: "research", key });
    expect((await waitRun(await sendMessage(key, "before"))).status).toBe("ok");
    // Events 1–3 are made older than the 30 days kept; the next append prunes them.
    await runInDurableObject(stub(key), (_instance, state) => {
      state.storage.sql.exec("UPDATE event SET occurred_at = occurred_at - 31 * 86400000 WHERE seq <= 3");
    });
    await session(key).patch({ label: `gap-${uid()}` });
    const answer = await changes(key, 1);
    expect(answer).toMatchObject({ historyGap: true, earliestAvailableSequence: 4, stateVersion: 7 });
    expect(answer.events[0]?.seq).toBe(4);
    expect((await changes(key, 3)).historyGap).toBe(false);
    const stream = await openStream(sessionPath(key, "/events?after=0"));
    expect(await stream.next()).toEqual({ event: "gap", data: { after: 0, earliestAvailableSequence: 4 } });
    expect(await stream.next()).toMatchObject({ event: "run_started", id: "4", data: { seq: 4 } });
    await stream.close();
  });
});
