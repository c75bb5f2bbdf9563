import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { updateRecord } from "../../../src/session/record/record";
import {
  AGENT_TOKENS,
  type ApiError,
  answerDeferred,
  call,
  callTool,
  createSession,
  driveUntil,
  runAlarms,
  sendMessage,
  session,
  stub,
  type ToolResults,
  tool,
  transcript,
  waitRun,
} from "../../support";
import { shardOf } from "../../support/shards";
import {
  childKeyOf,
  completionsAfter,
  completionsIn,
  expectRefused,
  firstBlockText,
  requester,
  settleAll,
  spawn,
  spawnOk,
  statusOf,
  waitDeferred,
} from "../../support/subagents";
import { members } from "./collector-table";

const COLLECT_NOTE =
  "Collector run: no completion notification is sent. The requester must explicitly collect this run's result with the available collector wait capability, using its run id.";

/** A collector child's runs: a queued member's run is held (not runnable) until its requester releases it. */
const childRuns = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql.exec("SELECT run_id, status, held FROM run ORDER BY seq").toArray(),
  );

/** Waits until the child's (only) run has this status. */
const runReaches = (key: string, status: string) =>
  driveUntil([key], async () => ((await childRuns(key))[0]?.status === status ? true : undefined), status);

const agentsWait = (key: string, args: Record<string, unknown>) => tool("agents_wait", key, args);

/** A collector of `r` in `groupId`, for hook-async (its run waits for the test's answer). */
const collector = (r: string, groupId: string, label: string, extra: Record<string, unknown> = {}) =>
  spawn(r, { task: `job ${label}`, agentId: "hook-async", label, collect: true, groupId, ...extra });

/** Answers a collector child's deferred run (the child must run already). */
async function answer(child: string, runId: string, text: string) {
  await waitDeferred(child, runId);
  const done = await session(child).completeDeferredRun(runId, { text });
  expect(done).toMatchObject({ ok: true });
}

/** The requester's pending collector_release entries: payload and when each is next tried. */
const releasesOwed = (key: string) =>
  runInDurableObject(stub(key), (_i, state) =>
    state.storage.sql
      .exec<{ payload: string; next_attempt_at: number }>(
        "SELECT payload, next_attempt_at FROM outbox WHERE kind = 'collector_release' ORDER BY id",
      )
      .toArray()
      .map((row) => ({ ...JSON.parse(row.payload), dueAt: row.next_attempt_at })),
  );

/** Makes every pending collector_release due now and past its deadline. */
const releasesExpired = (key: string) =>
  runInDurableObject(stub(key), async (_i, state) => {
    state.storage.sql.exec(
      `UPDATE outbox SET next_attempt_at = 0, payload = json_set(payload, '$.deadlineAt', 0)
       WHERE kind = 'collector_release'`,
    );
    await state.storage.setAlarm(Date.now());
  });

const CAPS = { maxConcurrent: 1, maxChildrenPerGroup: 5, maxTotalPerGroup: 5 };

describe("collectors (SPEC §15)", () => {
  it("checks collect, outputSchema and groupId in order, writing nothing on a refusal", async () => {
    const r = await requester("swarm-small", "collect-checks");
    const refused = async (args: Record<string, unknown>, status: "error" | "forbidden", error: string) =>
      expectRefused(r, await spawn(r, { task: "t", agentId: "hook-async", ...args }), status, error);
    await refused(
      { collect: true, thread: true, groupId: "g" },
      "error",
      "sessions_spawn collect=true requires mode=run and thread=false.",
    );
    await refused(
      { outputSchema: { type: "object" } },
      "error",
      "sessions_spawn outputSchema requires collect=true.",
    );
    await refused({ groupId: "g" }, "error", "sessions_spawn groupId requires collect=true.");
    await refused(
      { collect: true, groupId: "g", outputSchema: { type: "nope" } },
      "error",
      expect.stringMatching(/^Invalid sessions_spawn outputSchema: /) as unknown as string,
    );
    // The operator's call has no run: the default group needs one.
    await refused(
      { collect: true },
      "error",
      "sessions_spawn collect=true requires a requesting run id when groupId is omitted.",
    );
    const off = await requester("swarm-off", "collect-off");
    const disabled = await spawn(off, { task: "t", agentId: "swarm-off", collect: true, groupId: "g" });
    await expectRefused(
      off,
      disabled,
      "forbidden",
      "sessions_spawn swarm parameters require tools.swarm.enabled=true.",
    );
    expect(await members(r)).toEqual([]);
  });

  it("admits under the group caps, queues FIFO beyond maxConcurrent, ignores maxChildrenPerAgent, announces nothing", async () => {
    const r = await requester("swarm-small", "collect-caps");
    // An ordinary child takes swarm-small's one maxChildrenPerAgent slot: collectors are not limited by it.
    await spawnOk(r, { task: "plain", agentId: "hook-async", label: "plain" });
    const first = await collector(r, "g1", "one");
    expect(first).toMatchObject({
      status: "accepted",
      mode: "run",
      note: COLLECT_NOTE,
      expectsCompletionMessage: false,
      collect: true,
      groupId: "g1",
    });
    const second = await collector(r, "g1", "two");
    expect(second.status).toBe("accepted");
    // maxConcurrent 1: the second waits, its child created with its run held.
    expect((await members(r)).map((m) => [m.run_id, m.state])).toEqual([
      [first.runId, "running"],
      [second.runId, "queued"],
    ]);
    expect(await childRuns(second.childSessionKey)).toEqual([
      { run_id: second.runId, status: "queued", held: 1 },
    ]);
    // Two live members is maxChildrenPerGroup.
    expect(await collector(r, "g1", "three")).toEqual({
      status: "forbidden",
      error: "sessions_spawn reached tools.swarm.maxChildrenPerGroup (2/2).",
    });
    // The first ends: its result is a record at the requester (no run, no message there), and the
    // second starts.
    const before = (await transcript(r)).length;
    await answer(first.childSessionKey, first.runId, "result one");
    await waitDeferred(second.childSessionKey, second.runId);
    expect((await members(r)).map((m) => m.state)).toEqual(["ended", "running"]);
    expect((await transcript(r)).length).toBe(before);
    const runs = await runInDurableObject(stub(r), (_i, state) =>
      Number(state.storage.sql.exec("SELECT COUNT(*) AS n FROM run").one().n),
    );
    expect(runs).toBe(0);
    // The child's delivery record: a completion, delivered to the requester.
    const deliveries = await runInDurableObject(stub(first.childSessionKey), (_i, state) =>
      state.storage.sql.exec("SELECT kind, target, status FROM delivery").toArray(),
    );
    expect(deliveries).toEqual([{ kind: "completion", target: r, status: "delivered" }]);
    // A repeat with the same idempotencyKey is the same member.
    const keyed = await collector(r, "g1", "three", { idempotencyKey: "k1" });
    expect(await collector(r, "g1", "three", { idempotencyKey: "k1" })).toEqual(keyed);
    expect(await members(r)).toHaveLength(3);
    // Three in the group's lifetime is maxTotalPerGroup.
    expect(await collector(r, "g1", "four")).toEqual({
      status: "forbidden",
      error: "sessions_spawn reached tools.swarm.maxTotalPerGroup (3/3).",
    });
    // The collectors did not take maxChildrenPerAgent slots: the one plain child still counts alone.
    expect(await spawn(r, { task: "plain 2", agentId: "hook-async" })).toEqual({
      status: "forbidden",
      error:
        "This session already has 1 active sub-agents (maxChildrenPerAgent=1); wait for one to finish or kill one with subagents.",
    });
    // A queued member cancelled never starts.
    const cancelled = await tool("subagents", r, { action: "cancel", runId: keyed.runId });
    expect(cancelled).toMatchObject({ status: "ok", killed: 1 });
    const waited = await agentsWait(r, { ids: [keyed.runId], timeoutSeconds: 0 });
    expect(waited.completed).toEqual([
      {
        runId: keyed.runId,
        status: "killed",
        result: "",
        error: "run killed",
        sessionKey: keyed.childSessionKey,
        label: "three",
      },
    ]);
    // Its child's held run is killed, and never ran.
    await runReaches(keyed.childSessionKey, "killed");
    expect(await childRuns(keyed.childSessionKey)).toEqual([
      { run_id: keyed.runId, status: "killed", held: 1 },
    ]);
  });

  it("from a run: the group defaults to the run's, the agent to tools.swarm.defaultAgentId", async () => {
    const r = await requester("swarm", "collect-run");
    const runId = await sendMessage(r, "collect now");
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: "spawned a collector" });
    const [member] = await members(r);
    expect(member).toMatchObject({ state: "running", group_id: `swarm:${r}:${runId}` });
    expect(member?.child_key).toMatch(childKeyOf("hook-async"));
    // The child's first message is its task; that it is a collector is in its system prompt (SPEC §20).
    const [task] = await transcript(member?.child_key ?? "");
    expect(task?.content).toBe("[Subagent Task]: collected job");
    // The run's transcript holds the accepted result, with the collector's note.
    const accepted = (await transcript(r)).find((message) => message.role === "toolResult");
    expect(JSON.parse(firstBlockText(accepted))).toMatchObject({
      status: "accepted",
      runId: member?.run_id,
      expectsCompletionMessage: false,
      note: COLLECT_NOTE,
      groupId: `swarm:${r}:${runId}`,
    });
  });

  it("never lets concurrent spawns pass a cap together", async () => {
    const r = await requester("swarm-small", "collect-race");
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => collector(r, "race", `r${i}`)));
    const statuses = results.map((result) => result.status).sort();
    expect(statuses).toEqual(["accepted", "accepted", "forbidden", "forbidden", "forbidden", "forbidden"]);
    const states = (await members(r)).map((m) => m.state).sort();
    expect(states).toEqual(["queued", "running"]);
  });

  it("agents_wait: a result leaves the service with its secrets masked (issue 28)", async () => {
    const r = await requester("swarm", "collect-mask");
    const c = await collector(r, "m", "masked");
    const secret = "sk-live0123456789abcdefghij";
    await answer(c.childSessionKey, c.runId, `the deploy key is ${secret}`);
    const waited = await agentsWait(r, { ids: [c.runId], timeoutSeconds: 30 });
    const [item] = waited.completed;
    expect(item?.result).toMatch(/^the deploy key is sk-liv…/);
    expect(JSON.stringify(waited)).not.toContain(secret);
  });

  it("agents_wait: checks ids, parks until a result arrives, reads results again, leaks nothing", async () => {
    // swarm's waitTimeoutSecondsMax is the default 600 s: the parked wait below outlasts a slow answer.
    const r = await requester("swarm", "collect-wait");
    const other = await requester("swarm", "collect-wait-other");
    // Input errors, before any storage, in OpenClaw's words.
    const tooMany = await callTool<ApiError>("agents_wait", r, {
      ids: Array.from({ length: 1001 }, (_, i) => `x${i}`),
    });
    expect([tooMany.status, tooMany.json.error.message]).toEqual([
      400,
      "agents_wait supports at most 1000 ids.",
    ]);
    const blank = await callTool<ApiError>("agents_wait", r, { ids: [" ", ""] });
    expect([blank.status, blank.json.error.message]).toEqual([
      400,
      "agents_wait requires at least one non-empty run id.",
    ]);

    const a = await collector(r, "w", "alpha");
    const b = await collector(r, "w2", "beta");
    const foreign = await collector(other, "w", "foreign");
    expect(await agentsWait(r, { ids: [a.runId, b.runId], timeoutSeconds: 0 })).toEqual({
      completed: [],
      pending: [a.runId, b.runId],
    });
    const parked = agentsWait(r, {
      ids: [a.runId, ` ${b.runId} `, a.runId, "missing", foreign.runId],
      timeoutSeconds: 30,
    });
    await answer(b.childSessionKey, b.runId, "beta result");
    const woken = await parked;
    expect(woken).toEqual({
      completed: [
        {
          runId: b.runId,
          status: "done",
          result: "beta result",
          sessionKey: b.childSessionKey,
          label: "beta",
        },
      ],
      pending: [a.runId],
      errors: [
        { runId: "missing", error: "not_found" },
        { runId: foreign.runId, error: "not_owner" },
      ],
    });
    // Read again: the same result (kept 7 days), in completion order.
    await answer(a.childSessionKey, a.runId, "alpha result");
    const again = await agentsWait(r, { ids: [a.runId, b.runId] });
    expect(again.completed.map((item) => [item.runId, item.result])).toEqual([
      [b.runId, "beta result"],
      [a.runId, "alpha result"],
    ]);
    expect(again.pending).toEqual([]);
    // Nothing authorised: success false.
    expect(await agentsWait(r, { ids: [foreign.runId] })).toEqual({
      completed: [],
      pending: [],
      errors: [{ runId: foreign.runId, error: "not_owner" }],
      success: false,
    });
  });

  it("lets a requester up the tree wait, never holds up the spawner's task, and prunes results after 7 days", async () => {
    const r = await requester("spawner", "collect-tree");
    // A depth-1 orchestrator whose run waits for the test: it spawns a collector (of its own agent).
    const boss = await spawnOk(r, { task: "orchestrate", agentId: "boss-async-rec", label: "boss" });
    await waitDeferred(boss.child, boss.runId);
    const grand = await spawn(boss.child, {
      task: "deep job",
      label: "deep",
      collect: true,
      groupId: "deep",
      cleanup: "delete",
    });
    expect(grand).toMatchObject({ status: "accepted", collect: true });
    // The orchestrator's run ends: the collector still runs, yet its task reports (no implicit wait).
    await answerDeferred(boss.child, "boss done", [boss.child]);
    const completions = await completionsAfter(r, [r, boss.child]);
    expect(completions).toHaveLength(1);
    expect(await statusOf(boss.child, boss.runId)).toBe("ok");
    // The grandparent waits on its grandchild's collector, read from the spawner's store.
    const parked = agentsWait(r, { ids: [grand.runId], timeoutSeconds: 30 });
    // Its child deletes itself after reporting (cleanup "delete"), in the same call.
    await waitDeferred(grand.childSessionKey, grand.runId);
    await session(grand.childSessionKey).completeDeferredRun(grand.runId, { text: "deep result" });
    expect(await parked).toEqual({
      completed: [
        {
          runId: grand.runId,
          status: "done",
          result: "deep result",
          sessionKey: grand.childSessionKey,
          label: "deep",
        },
      ],
      pending: [],
    });
    // Once the child is gone, the run index still names its spawner.
    await driveUntil(
      [grand.childSessionKey],
      async () => ((await session(grand.childSessionKey).describe()).ok ? undefined : true),
      "the collector child removed",
    );
    expect((await agentsWait(r, { ids: [grand.runId], timeoutSeconds: 0 })).completed).toHaveLength(1);
    // An ordinary sub-agent run is no collector: not found.
    expect((await agentsWait(r, { ids: [boss.runId], timeoutSeconds: 0 })).errors).toEqual([
      { runId: boss.runId, error: "not_found" },
    ]);
    // From inside a collector (an orchestrator here), only collectors may be spawned: checked first.
    const orchestrator = await spawn(r, {
      task: "orchestrate more",
      agentId: "boss-async-rec",
      collect: true,
      groupId: "o",
    });
    expect(await spawn(orchestrator.childSessionKey, { task: "nested" })).toEqual({
      status: "error",
      error: "sessions_spawn from a collector requires collect=true so approvals stay non-interactive.",
    });
    // Seven days after it arrived, the result is pruned (due work of the alarm).
    await runInDurableObject(stub(boss.child), (_i, state) => {
      state.storage.sql.exec("UPDATE collector SET ended_at = ?", Date.now() - 7 * 24 * 3600 * 1000 - 1000);
    });
    await runAlarms([boss.child]);
    expect(await members(boss.child)).toEqual([]);
  });

  it("starts no queued member once the requester is killed or deleted", async () => {
    const r = await requester("swarm-small", "collect-stop");
    const running = await collector(r, "s", "running");
    const queued = await collector(r, "s", "queued");
    // subagents kill all: the queued member is cancelled first, then the running one is killed.
    const killed = await tool("subagents", r, { action: "kill", target: "all" });
    expect(killed).toMatchObject({ status: "ok", killed: 2 });
    await driveUntil(
      [r, running.childSessionKey],
      async () => ((await members(r)).every((m) => m.state === "ended") ? true : undefined),
      "both members ended",
    );
    expect((await members(r)).map((m) => [m.state, m.status])).toEqual([
      ["ended", "killed"],
      ["ended", "killed"],
    ]);
    await runReaches(queued.childSessionKey, "killed");
    expect(await childRuns(queued.childSessionKey)).toEqual([
      { run_id: queued.runId, status: "killed", held: 1 },
    ]);

    // A deleted requester: its queued member never starts, even once the running one ends.
    const gone = await requester("swarm-small", "collect-gone");
    const first = await collector(gone, "s", "first");
    const second = await collector(gone, "s", "second");
    expect(await session(gone).remove()).toMatchObject({ ok: true });
    await answer(first.childSessionKey, first.runId, "late");
    await runAlarms([gone, first.childSessionKey], 2);
    await runReaches(second.childSessionKey, "killed");
    expect(await childRuns(second.childSessionKey)).toEqual([
      { run_id: second.runId, status: "killed", held: 1 },
    ]);
    const record = await runInDurableObject(stub(first.childSessionKey), (_i, state) =>
      state.storage.sql.exec("SELECT kind, status FROM delivery").toArray(),
    );
    expect(record).toEqual([{ kind: "completion", status: "failed" }]);

    // A member whose child cannot be reached by the release's deadline ends failed, freeing its slot.
    const lost = await requester("swarm-small", "collect-lost");
    await runInDurableObject(stub(lost), async (_i, state) => {
      const sql = state.storage.sql;
      sql.exec(
        `INSERT INTO collector (run_id, group_id, child_key, state, max_concurrent, created_at)
         VALUES ('lost-run', 'g', 'agent:hook-async:never-created', 'running', 1, ?)`,
        Date.now(),
      );
      sql.exec(
        `INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES ('collector_release', 'x', ?, 0)`,
        JSON.stringify({
          runId: "lost-run",
          childKey: "agent:hook-async:never-created",
          deadlineAt: Date.now(),
        }),
      );
      await state.storage.setAlarm(Date.now());
    });
    // Driven until the release is settled: the alarm set now may also fire by itself, mid-drive.
    const settled = await driveUntil(
      [lost],
      async () => {
        const { completed } = await agentsWait(lost, { ids: ["lost-run"], timeoutSeconds: 0 });
        return completed.length > 0 ? completed : undefined;
      },
      "the lost member's release",
    );
    expect(settled).toMatchObject([
      { runId: "lost-run", status: "failed", error: "collector run could not be started" },
    ]);
  });

  it("a deleted child reports killed and frees its slot; pruning keeps the lifetime cap; a re-created requester starts empty", async () => {
    const r = await requester("swarm-small", "collect-deleted");
    const a = await collector(r, "d", "a");
    const b = await collector(r, "d", "b");
    await waitDeferred(a.childSessionKey, a.runId);
    // The running member's child is deleted: its member ends killed, and the queued one starts.
    expect(await session(a.childSessionKey).remove()).toMatchObject({ ok: true });
    await driveUntil(
      [r, a.childSessionKey],
      async () => ((await members(r))[0]?.state === "ended" ? true : undefined),
      "the deleted child's member ended",
    );
    expect((await agentsWait(r, { ids: [a.runId], timeoutSeconds: 0 })).completed).toEqual([
      {
        runId: a.runId,
        status: "killed",
        result: "",
        error: "session deleted",
        sessionKey: a.childSessionKey,
        label: "a",
      },
    ]);
    await answer(b.childSessionKey, b.runId, "b done");
    // The ended rows are pruned after 7 days: the group's lifetime count stays (3 admitted is its cap).
    const c = await collector(r, "d", "c");
    expect(c.status).toBe("accepted");
    await runInDurableObject(stub(r), (_i, state) => {
      state.storage.sql.exec(
        "UPDATE collector SET ended_at = ? WHERE state = 'ended'",
        Date.now() - 7 * 24 * 3600 * 1000 - 1000,
      );
    });
    await runAlarms([r]);
    expect((await members(r)).map((m) => m.run_id)).toEqual([c.runId]);
    expect(await collector(r, "d", "d")).toEqual({
      status: "forbidden",
      error: "sessions_spawn reached tools.swarm.maxTotalPerGroup (3/3).",
    });
    // The requester deleted, its index row gone but its storage not wiped yet (a cut between the two),
    // and created again on its key: no member, no group count left.
    await runInDurableObject(stub(r), (_i, state) =>
      updateRecord(state.storage.sql, { deletedAt: Date.now() }),
    );
    await shardOf(r).prepare("DELETE FROM session_index WHERE session_key = ?").bind(r).run();
    await createSession({ agentId: "swarm-small", key: r });
    expect(await members(r)).toEqual([]);
    expect((await collector(r, "d", "again")).status).toBe("accepted");
    expect(await tool("subagents", r, { action: "kill", target: "all" })).toMatchObject({ status: "ok" });
  });

  it("refuses to steer a collector; its task reports once, under its runId; agents_wait caps its answer", async () => {
    const r = await requester("swarm", "collect-steer");
    const a = await collector(r, "s", "a");
    await waitDeferred(a.childSessionKey, a.runId);
    expect(await tool("subagents", r, { action: "steer", target: "a", message: "redo" })).toEqual({
      status: "error",
      action: "steer",
      error: "A collector sub-agent cannot be steered: collect its result with agents_wait.",
    });
    await answer(a.childSessionKey, a.runId, "first");
    // A later run of the child (a message sent to it) reports nothing more: the task reported.
    const later = crypto.randomUUID();
    const sent = await session(a.childSessionKey).enqueueTurn({
      runId: later,
      message: { text: "more", provenance: { kind: "inter_session", sourceSessionKey: r } },
    });
    expect(sent).toMatchObject({ ok: true });
    await answer(a.childSessionKey, later, "second");
    await runAlarms([a.childSessionKey, r]);
    const deliveries = await runInDurableObject(stub(a.childSessionKey), (_i, state) =>
      state.storage.sql.exec("SELECT run_id, status FROM delivery").toArray(),
    );
    expect(deliveries).toEqual([{ run_id: a.runId, status: "delivered" }]);
    expect((await agentsWait(r, { ids: [a.runId] })).completed.map((item) => item.result)).toEqual(["first"]);
    // Results past 256 KiB of JSON are left out of the answer and named.
    const big = await Promise.all(["x", "y", "z"].map((label) => collector(r, "big", label)));
    for (const member of big) await answer(member.childSessionKey, member.runId, "b".repeat(100_000));
    const capped = await agentsWait(r, { ids: big.map((member) => member.runId), timeoutSeconds: 0 });
    expect(capped.completed).toHaveLength(2);
    expect(capped).toMatchObject({ pending: [], truncated: true });
    const shown = new Set(capped.completed.map((item) => item.runId));
    expect(capped.omitted).toEqual(big.map((member) => member.runId).filter((id) => !shown.has(id)));
  });

  it("agents_wait waits on the spawners with pending runs only", async () => {
    const r = await requester("spawner", "collect-race-only");
    const boss = await spawnOk(r, { task: "orchestrate", agentId: "boss-async-rec", label: "boss" });
    await waitDeferred(boss.child, boss.runId);
    // An ordinary grandchild: its spawner (the boss) keeps no collector of that id.
    const plain = await spawnOk(boss.child, { task: "plain job" });
    const mine = await spawn(r, {
      task: "job",
      agentId: "hook-async",
      label: "mine",
      collect: true,
      groupId: "m",
    });
    const parked = agentsWait(r, { ids: [mine.runId, plain.runId], timeoutSeconds: 30 });
    await answer(mine.childSessionKey, mine.runId, "mine done");
    expect(await parked).toEqual({
      completed: [
        {
          runId: mine.runId,
          status: "done",
          result: "mine done",
          sessionKey: mine.childSessionKey,
          label: "mine",
        },
      ],
      pending: [],
      errors: [{ runId: plain.runId, error: "not_found" }],
    });
  });

  it("a killed requester's queued members end killed, waking a parked agents_wait", async () => {
    const r = await requester("swarm", "collect-kill-wake");
    await Promise.all(Array.from({ length: 9 }, (_, i) => collector(r, "k", `k${i}`)));
    const queued = (await members(r)).filter((m) => m.state === "queued").map((m) => m.run_id);
    expect(queued).toHaveLength(1);
    // Parked for longer than this test may last: only the kill's wake can answer it in time.
    const parked = agentsWait(r, { ids: queued, timeoutSeconds: 60 });
    expect(await session(r).kill()).toMatchObject({ ok: true });
    expect((await parked).completed).toMatchObject([{ runId: queued[0], status: "killed" }]);
    // Its running members' children are stopped too (they would hold hook-async's run slots).
    expect(await tool("subagents", r, { action: "kill", target: "all" })).toMatchObject({ status: "ok" });
  });

  it("an orchestrator's task waits for its ordinary child however many collectors are newer", async () => {
    const top = await requester("spawner", "collect-crowd");
    const middle = await spawnOk(top, { task: "orchestrate", agentId: "boss-async-rec", label: "middle" });
    await waitDeferred(middle.child, middle.runId);
    await spawnOk(middle.child, { task: "part one", label: "one" });
    // 200 collector children newer than it in the index (rows only, of an agent no test runs: collectors
    // never hold up the task).
    const now = Date.now();
    const crowdShard = shardOf(middle.child);
    await crowdShard.batch(
      Array.from({ length: 200 }, (_, i) =>
        crowdShard
          .prepare(
            `INSERT INTO session_index (session_key, session_id, agent_id, kind, channel, created_at, updated_at,
             search_text, version, spawned_by, status, collector, recency)
           SELECT ?, ?, 'crowd', 'other', 'internal', ?, ?, '', 1, ?, 'running', 1, MAX(recency) + 1
           FROM session_index`,
          )
          .bind(`${middle.child}:crowd-${i}`, crypto.randomUUID(), now, now, middle.child),
      ),
    );
    await answerDeferred(middle.child, "delegated", [middle.child]);
    await settleAll([middle.child, top]);
    // Its task ended waiting for the ordinary child: nothing reached the top yet.
    expect(await completionsIn(top)).toEqual([]);
    expect(await statusOf(middle.child, middle.runId)).toBe("ok");
  });

  it("lets a requester up the tree wait on a member still queued", async () => {
    const top = await requester("spawner", "collect-tree-queued");
    const boss = await spawnOk(top, { task: "orchestrate", agentId: "boss-async-rec", label: "boss" });
    await waitDeferred(boss.child, boss.runId);
    await Promise.all(
      Array.from({ length: 9 }, (_, i) => spawn(boss.child, { task: `q${i}`, collect: true, groupId: "q" })),
    );
    const queued = (await members(boss.child)).filter((m) => m.state === "queued").map((m) => m.run_id);
    expect(queued).toHaveLength(1);
    // Its child and held run exist already: the run index names its spawner.
    expect(await agentsWait(top, { ids: queued, timeoutSeconds: 0 })).toEqual({
      completed: [],
      pending: queued,
    });
  });

  it("owes an admitted member's child its release: a spawn cut before the child fails it at the deadline, waking waits", async () => {
    const r = await requester("swarm", "collect-cut");
    // A child whose object throws on release (its run table is gone): the RPC fails by throwing.
    const broken = `agent:hook-async:broken-${crypto.randomUUID()}`;
    await createSession({ agentId: "hook-async", key: broken });
    await runInDurableObject(stub(broken), (_i, state) => state.storage.sql.exec("DROP TABLE run"));
    // Admitted straight into the free slot, then the spawn is cut before createWithTurn.
    const before = Date.now();
    const admitted = await session(r).admitCollector({
      runId: "cut-run",
      groupId: "g",
      childKey: broken,
      caps: CAPS,
    });
    expect(admitted).toEqual({ ok: true, value: { state: "running", duplicate: false } });
    const owed = await releasesOwed(r);
    expect(owed).toMatchObject([{ runId: "cut-run", childKey: broken }]);
    expect(owed[0].dueAt).toBeGreaterThanOrEqual(before + 5000);
    expect(owed[0].kill).toBeUndefined();
    // Not reached by its deadline (the release threw): the member fails, a parked wait wakes, and the
    // child, should it appear after all, is owed its kill.
    const parked = session(r).waitCollectors(["cut-run"], 60_000);
    await releasesExpired(r);
    await runAlarms([r]);
    expect(await parked).toMatchObject({
      ok: true,
      value: {
        completed: [{ runId: "cut-run", status: "failed", error: "collector run could not be started" }],
      },
    });
    expect(await releasesOwed(r)).toMatchObject([{ runId: "cut-run", childKey: broken, kill: true }]);
    // The slot is free again.
    expect(
      await session(r).admitCollector({
        runId: "next-run",
        groupId: "g",
        childKey: `${broken}-2`,
        caps: CAPS,
      }),
    ).toMatchObject({ ok: true, value: { state: "running" } });
  });

  it("admits nothing for a requester deleted or a requester run ended", async () => {
    const r = await requester("swarm", "collect-dead");
    const admission = { runId: "late-run", groupId: "g", childKey: "agent:hook-async:late", caps: CAPS };
    expect(await session(r).admitCollector({ ...admission, requesterRunId: "no-such-run" })).toMatchObject({
      ok: false,
      code: "conflict",
    });
    expect(await session(r).remove()).toMatchObject({ ok: true });
    expect(await session(r).admitCollector(admission)).toMatchObject({ ok: false, code: "not_found" });
    expect(
      await runInDurableObject(stub(r), (_i, state) =>
        state.storage.sql.exec("SELECT 1 FROM collector").toArray(),
      ),
    ).toEqual([]);
  });

  it("spawns a collector from an agent token acting as a session never written, as a plain spawn does", async () => {
    const as = `agent:main:collect-token-${crypto.randomUUID()}`;
    const byToken = (name: string, body: Record<string, unknown>) =>
      call<ToolResults["sessions_spawn"] & ToolResults["agents_wait"]>("POST", `/v1/tools/${name}`, {
        token: AGENT_TOKENS.main,
        body,
        headers: { "X-Switchboard-Session": as },
      });
    const plain = await byToken("sessions_spawn", { task: "plain job", agentId: "research" });
    expect(plain.json).toMatchObject({ status: "accepted" });
    const spawned = await byToken("sessions_spawn", {
      task: "count the rows",
      agentId: "research",
      collect: true,
      groupId: "token-group",
    });
    expect(spawned.json, spawned.text).toMatchObject({
      status: "accepted",
      collect: true,
      groupId: "token-group",
    });
    // The requester now exists (it holds the group), and collects the result with the same token.
    expect((await members(as)).map((member) => member.run_id)).toEqual([spawned.json.runId]);
    const child = spawned.json.childSessionKey;
    const waited = await driveUntil(
      [as, child],
      async () => {
        const answer = await byToken("agents_wait", { ids: [spawned.json.runId], timeoutSeconds: 0 });
        return answer.json.completed.length > 0 ? answer.json : undefined;
      },
      "the collector's result",
    );
    expect(waited).toMatchObject({
      completed: [{ runId: spawned.json.runId, status: "done", sessionKey: child }],
      pending: [],
    });
    expect(waited.completed[0]?.result).toContain("count the rows");
    await settleAll([as, plain.json.childSessionKey, child]);
  });

  it("a session created again over unwiped storage still kills the children its old members were owed", async () => {
    const r = await requester("swarm-small", "collect-recreate");
    const first = await collector(r, "g", "first");
    const second = await collector(r, "g", "second");
    expect(await childRuns(second.childSessionKey)).toEqual([
      { run_id: second.runId, status: "queued", held: 1 },
    ]);
    // The second member's release is owed but not delivered yet when the requester is deleted and,
    // its storage not wiped yet, created again.
    await runInDurableObject(stub(r), (_i, state) => {
      state.storage.sql.exec(
        `INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES ('collector_release', ?, ?, ?)`,
        `collector_release:${second.runId}`,
        JSON.stringify({
          runId: second.runId,
          childKey: second.childSessionKey,
          deadlineAt: Date.now() + 60_000,
        }),
        Date.now() + 60_000,
      );
      updateRecord(state.storage.sql, { deletedAt: Date.now() });
    });
    await shardOf(r).prepare("DELETE FROM session_index WHERE session_key = ?").bind(r).run();
    await createSession({ agentId: "swarm-small", key: r });
    // Both old members' children are owed their kill instead (the re-creation's own write delivers them).
    await runAlarms([r]);
    await runReaches(second.childSessionKey, "killed");
    await runReaches(first.childSessionKey, "killed");
    // A killed run stays killed: releasing it answers not held.
    expect(await session(second.childSessionKey).releaseRun(second.runId)).toEqual({
      ok: true,
      value: { released: false },
    });
    expect(await childRuns(second.childSessionKey)).toEqual([
      { run_id: second.runId, status: "killed", held: 1 },
    ]);
  });
});
