import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  deliveries,
  driveUntil,
  ended,
  expectOnlyPosts,
  sessionPath,
  storedRuns,
  stub,
  tool,
  transcript,
  turns,
} from "../support";
import {
  completionsAfter,
  completionsIn,
  expectedCompletion,
  indexedChildren,
  requester,
  runOf,
  sessionStatus,
  settleAll,
  spawnOk,
  subagents,
  taskMessage,
  textOf,
} from "../support/subagents";

describe("spawn → child run → one completion → the requester's update on its channel", () => {
  it("delivers exactly one completion with status, fenced result and stats, then posts the requester's reply", async () => {
    const r = await requester("main", "e2e", true);
    const group = r.split(":").at(-1);
    const { child, runId } = await spawnOk(r, { task: "collect the numbers", agentId: "research" });

    const [completion, ...more] = await completionsAfter(r, [r, child]);
    expect(more).toEqual([]);
    // The child ran the task, its first visible message (its rules are in its system prompt).
    const taskText = taskMessage("collect the numbers");
    const childMessages = await transcript(child);
    expect(childMessages.map((message) => [message.role, message.content])).toEqual([
      ["user", taskText],
      ["assistant", [{ type: "text", text: `Findings: ${taskText}` }]],
    ]);
    expect(childMessages[0]?.provenance).toEqual({ kind: "subagent_task", sourceSessionKey: r });
    const run = await runOf(child, runId);
    expect(run).toMatchObject({ status: "ok", reply: `Findings: ${taskText}` });

    const text = textOf(completion);
    expect(text).toBe(
      await expectedCompletion(
        child,
        runId,
        "collect the numbers",
        "completed successfully",
        `Findings: ${taskText}`,
      ),
    );
    expect(text.split("\n").at(-1)).toMatch(/^runtime \d+s • tokens \d+ \(in \d+ \/ out \d+\)$/);
    expect(completion?.provenance).toEqual({ kind: "subagent_completion", sourceSessionKey: child });
    expect(completion?.role).toBe("user");

    // The requester ran one turn with the completion, told to turn it into an update (or stay silent).
    const [turn, ...otherRuns] = await storedRuns(r);
    expect(otherRuns).toEqual([]);
    expect(turn).toMatchObject({ status: "ok", reply: `Got it: ${text}` });
    expect(turn?.context).toContain("update for the user");
    expect(turn?.context).toContain("ANNOUNCE_SKIP");
    expect(await turns(r)).toEqual([
      ["user", text],
      ["assistant", `Got it: ${text}`],
    ]);

    // ...and its reply went to the requester's channel, once.
    const posts = await driveUntil(
      [r],
      async () => ((await deliveries(r)).length > 0 ? deliveries(r) : undefined),
      "the requester's post",
    );
    expect(posts.map((post) => post.json)).toMatchObject([
      {
        channel: "discord",
        to: `group:${group}`,
        text: `Got it: ${text}`,
        sessionKey: r,
        runId: turn?.runId,
      },
    ]);
    await expectOnlyPosts(r, [`Got it: ${text}`]);
  });

  it("returns before the child's run has ended (a 3-second model)", async () => {
    const r = await requester("spawner", "e2e-nonblock");
    const started = Date.now();
    const { child, runId } = await spawnOk(r, { task: "slow thinking", agentId: "model-slow" });
    expect(Date.now() - started).toBeLessThan(2500);
    const [run] = await storedRuns(child);
    expect(run?.runId).toBe(runId);
    expect(["queued", "running"]).toContain(run?.status);
    expect((await transcript(child)).map((message) => message.role)).toEqual(["user"]);
    expect(await completionsIn(r)).toEqual([]);
    // Stop it rather than wait for it.
    expect(await subagents(r, { action: "kill", target: child })).toMatchObject({ status: "ok", killed: 1 });
    await completionsAfter(r, [r, child]);
  });

  it("a child replying exactly ANNOUNCE_SKIP announces nothing", async () => {
    const r = await requester("main", "e2e-skip", true);
    const ops = await spawnOk(r, { task: "quiet housekeeping", agentId: "ops" });
    const boss = await requester("boss", "e2e-skip-b");
    const worker = await spawnOk(boss, { task: "be silent about it", agentId: "worker" });
    await settleAll([ops.child, r, worker.child, boss]);
    expect(await runOf(ops.child, ops.runId)).toMatchObject({ status: "ok", reply: "ANNOUNCE_SKIP" });
    expect(await runOf(worker.child, worker.runId)).toMatchObject({ status: "ok", reply: "ANNOUNCE_SKIP" });
    expect(await transcript(r)).toEqual([]);
    expect(await storedRuns(r)).toEqual([]);
    expect(await transcript(boss)).toEqual([]);
    await expectOnlyPosts(r, []);
  });

  it("a failing child announces `failed: <error>` from the run, with (no output)", async () => {
    const r = await requester("spawner", "e2e-fail");
    const { child, runId } = await spawnOk(r, {
      task: "ask the broken model",
      agentId: "model-500",
      label: "broken",
    });
    const [completion] = await completionsAfter(r, [r, child]);
    const run = await runOf(child, runId);
    expect(run.status).toBe("error");
    expect(run.error).toContain("500");
    expect(textOf(completion)).toBe(
      await expectedCompletion(child, runId, "broken", `failed: ${run.error}`, "(no output)"),
    );
  });

  it("a timed-out child (runTimeoutSeconds 1 on a 3-second model) announces `timed out`", async () => {
    const r = await requester("spawner", "e2e-timeout");
    const { child, runId } = await spawnOk(r, {
      task: "take your time",
      agentId: "model-slow",
      runTimeoutSeconds: 1,
    });
    const [completion, ...more] = await completionsAfter(r, [r, child]);
    expect(more).toEqual([]);
    const run = ended(await runOf(child, runId));
    expect(run).toMatchObject({ status: "timeout", error: "run timed out after 1s" });
    expect(run.endedAt - run.startedAt).toBeGreaterThanOrEqual(1000);
    expect(run.endedAt - run.startedAt).toBeLessThan(3000);
    expect(textOf(completion)).toBe(
      await expectedCompletion(child, runId, "take your time", "timed out", "(no output)"),
    );
  });

  it('cleanup: "delete" removes the child once its completion is delivered', async () => {
    const r = await requester("main", "e2e-delete");
    const { child } = await spawnOk(r, { task: "throwaway", agentId: "research", cleanup: "delete" });
    const completions = await driveUntil(
      [r, child],
      async () => {
        const found = await completionsIn(r);
        return found.length > 0 && (await sessionStatus(child)) === 404 ? found : undefined;
      },
      "the completion and the child's removal",
    );
    expect(completions).toHaveLength(1);
    expect(textOf(completions[0])).toContain(`child=${child} `);
    expect((await call("GET", sessionPath(child, "/transcript.jsonl"), { token: ADMIN })).status).toBe(404);
    await driveUntil(
      [child],
      async () => ((await indexedChildren(r)).length === 0 ? true : undefined),
      "index row gone",
    );
    // A kept child (the default) stays.
    const kept = await spawnOk(r, { task: "keep me", agentId: "research" });
    await completionsAfter(r, [r, kept.child], 2);
    expect(await sessionStatus(kept.child)).toBe(200);
  });

  it("names an unlabelled child by its task, never by the header before it", async () => {
    const r = await requester("main", "e2e-title");
    const { child } = await spawnOk(r, { task: "tally the invoices" });
    await completionsAfter(r, [r, child]);
    const listed = await tool("sessions_list", r, { includeDerivedTitles: true, includeLastMessage: true });
    expect(listed.sessions.find((row) => row.key === child)?.derivedTitle).toBe("tally the invoices");
    const items = await subagents(r, { action: "list" });
    expect(items.text).toContain("tally the invoices");
    expect(JSON.stringify(items)).not.toContain("[Subagent Task]");
  });

  it("archives the child archiveAfterMinutes after its run: out of default listings, still readable by key", async () => {
    // Same agent: tree visibility lists a requester's own agent's children (SPEC §4).
    const r = await requester("main", "e2e-archive");
    const { child } = await spawnOk(r, { task: "file it away", label: "archivist" });
    await completionsAfter(r, [r, child]);
    const listed = await tool("sessions_list", r, {});
    expect(listed.sessions.map((row) => row.key)).toContain(child);

    // Due 60 minutes (the default) after the run ended.
    const { archiveAt, endedAt } = await runInDurableObject(stub(child), (_instance, state) =>
      state.storage.sql
        .exec<{ archiveAt: number; endedAt: number }>(
          "SELECT archive_at AS archiveAt, ended_at AS endedAt FROM session",
        )
        .one(),
    );
    expect(archiveAt - endedAt).toBe(60 * 60_000);
    expect(await runInDurableObject(stub(child), (_instance, state) => state.storage.getAlarm())).toBe(
      archiveAt,
    );
    // Not yet due: the alarm leaves it listed.
    await runDurableObjectAlarm(stub(child));
    expect((await tool("sessions_list", r, {})).sessions.map((row) => row.key)).toContain(child);

    // Make it due, and run the (still pending, re-armed) alarm now: no sleeping. Like every write to the
    // record, it moves the version (the object's kept copy of the record is checked against it).
    await runInDurableObject(stub(child), (_instance, state) => {
      state.storage.sql.exec("UPDATE session SET archive_at = ?, version = version + 1", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub(child))).toBe(true);
    await settleAll([child]);

    const after = await tool("sessions_list", r, {});
    expect(after.sessions.map((row) => row.key)).not.toContain(child);
    const withArchived = await tool("sessions_list", r, { includeArchived: true });
    const row = withArchived.sessions.find((each) => each.key === child);
    expect(row).toMatchObject({ key: child, label: "archivist", archived: true, spawnedBy: r });
    // Still readable by key.
    expect(await sessionStatus(child)).toBe(200);
    const history = await tool("sessions_history", r, { sessionKey: child });
    expect(history.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    // subagents still shows it among the recent ones.
    const listing = await subagents(r, { action: "list" });
    expect(listing.recent.map((item) => item.sessionKey)).toEqual([child]);
  });

  it("a boss child's archive delay is its agent's own archiveAfterMinutes (5)", async () => {
    const r = await requester("spawner", "e2e-archive-boss");
    const { child } = await spawnOk(r, { task: "just report", agentId: "boss" });
    await completionsAfter(r, [r, child]);
    const { archiveAt, endedAt } = await runInDurableObject(stub(child), (_instance, state) =>
      state.storage.sql
        .exec<{ archiveAt: number; endedAt: number }>(
          "SELECT archive_at AS archiveAt, ended_at AS endedAt FROM session",
        )
        .one(),
    );
    expect(archiveAt - endedAt).toBe(5 * 60_000);
  });
});
