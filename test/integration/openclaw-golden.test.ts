/**
 * The golden `/tools/invoke` test: one scripted sequence of calls, through the real Worker, covering each
 * tool and each class of failure, whose answers' SHAPES (HTTP status, envelope, `details` keys and JSON
 * types, and the few values the documents fix, like status values) must equal the committed
 * expectations in openclaw-golden.expected.json. Each expectation names the document section it comes
 * from (SPEC.md, the OpenClaw reference, issue 11). Ids and times vary from run to run; shapes must not.
 *
 * The requesters are fresh `spawner` sessions (coding profile, may spawn any agent) under the test
 * configuration's `tree` visibility, so everything they can see is what this script made. S spawns two
 * sub-agents and nothing else (every session with `spawnedBy` is one of its sub-agents):
 * - C_async: a `hook-async` sub-agent whose run waits for its webhook (the active sub-agent);
 * - C_done: a same-agent sub-agent that has finished (the recent sub-agent, and the history with text).
 * R has children made directly (createSpawned), and no sub-agent runs:
 * - T: the target of the sends, and a session whose newest message is a tool result;
 * - P1, P2: two never-run children sharing one label, for offset paging;
 * - A: a never-run child, archived by the `sessions` tool.
 * O is a session outside both trees (the policy failure, and a run S may not cancel).
 */
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  createSession,
  createSpawned,
  driveUntil,
  type HttpResult,
  runToken,
  sendMessage,
  uid,
} from "../support";
import { type InvokeShape, invokeShape, valueAt } from "../support/shape";
import { runOf, settleAll, waitDeferred } from "../support/subagents";
import expectations from "./openclaw-golden.expected.json";

/** One expectation: the shape, the document it comes from, and the exact values the documents fix. */
interface Expectation extends InvokeShape {
  doc: string;
  /** Dotted paths into `details` (or into `error` for an error answer) and their exact values. */
  values?: Record<string, unknown>;
}

const expected = expectations as unknown as Record<string, Expectation>;

/** `POST /tools/invoke` with a JSON (or raw string) body. */
const invoke = (body: unknown, token: string = ADMIN) => call("POST", "/tools/invoke", { token, body });

/** The shape of an answer plus, for each path the expectation fixes, the value found there. */
function observed(answer: HttpResult<unknown>, values: Record<string, unknown> | undefined) {
  const shape = invokeShape(answer);
  const body = answer.json as { ok?: boolean; result?: { details?: unknown }; error?: unknown } | undefined;
  const root = body?.ok === false ? body.error : body?.result?.details;
  const found = values
    ? Object.fromEntries(Object.keys(values).map((path) => [path, valueAt(root, path)]))
    : undefined;
  return { ...shape, ...(found ? { values: found } : {}) };
}

describe("OpenClaw golden: /tools/invoke answer shapes", () => {
  it("answers one scripted sequence with the committed shapes", async () => {
    const u = uid();
    const S = `agent:spawner:golden-s-${u}`;
    const R = `agent:spawner:golden-r-${u}`;
    const T = `agent:spawner:golden-t-${u}`;
    const O = `agent:spawner:golden-o-${u}`;
    const missing = `agent:spawner:golden-missing-${u}`;
    const pairLabel = `golden-pair-${u}`;
    const archiveLabel = `golden-archive-${u}`;
    await createSession({ agentId: "spawner", key: S });
    await createSession({ agentId: "spawner", key: R });
    await createSession({ agentId: "spawner", key: O });
    await createSpawned({ sessionKey: T, agentId: "spawner", spawnedBy: R, label: `golden-target-${u}` });
    for (const n of [1, 2])
      await createSpawned({
        sessionKey: `agent:spawner:golden-p${n}-${u}`,
        agentId: "spawner",
        spawnedBy: R,
        label: pairLabel,
      });
    const archivable = await createSpawned({
      sessionKey: `agent:spawner:golden-a-${u}`,
      agentId: "spawner",
      spawnedBy: R,
      label: archiveLabel,
    });
    // A run outside S's tree: S may not cancel it.
    const outsideRunId = await sendMessage(O, "hello from outside");
    await settleAll([O]);

    const answers: Record<string, HttpResult<unknown>> = {};
    const as = (tool: string, args: Record<string, unknown> = {}, sessionKey = R) =>
      invoke({ tool, args, sessionKey });
    const asS = (tool: string, args: Record<string, unknown>) => as(tool, args, S);
    const step = async (name: string, answer: Promise<HttpResult<unknown>>) => {
      answers[name] = await answer;
      return answers[name];
    };
    const detailsOf = (answer: HttpResult<unknown>) =>
      (answer.json as { result?: { details?: Record<string, unknown> } } | undefined)?.result?.details;

    // §12: the requester's own main session, never written, is an empty page and a "no activity" card.
    await step(
      "sessions_history.own-main-never-written",
      invoke({ tool: "sessions_history", args: { sessionKey: "main" } }, AGENT_TOKENS.research),
    );
    await step(
      "session_status.own-main-card",
      invoke({ tool: "session_status", args: {} }, AGENT_TOKENS.research),
    );
    await step("agents_list", invoke({ tool: "agents_list", args: {} }, AGENT_TOKENS.main));

    // Sub-agents: one that keeps running (its webhook answers later), one that finishes.
    const running = await step(
      "sessions_spawn.accepted",
      asS("sessions_spawn", { task: "golden errand", agentId: "hook-async", label: `golden-running-${u}` }),
    );
    const asyncChild = detailsOf(running);
    const done = detailsOf(await asS("sessions_spawn", { task: "golden done", label: `golden-done-${u}` }));
    // A spawn that was not accepted fails its own step below; the waits are skipped, not timed out.
    if (asyncChild?.childSessionKey && asyncChild.runId)
      await waitDeferred(String(asyncChild.childSessionKey), String(asyncChild.runId));
    await settleAll(done?.childSessionKey ? [String(done.childSessionKey), S] : [S]);

    await step("subagents.list", asS("subagents", { action: "list" }));
    await step(
      "subagents.wait.completed",
      asS("subagents", { action: "wait", runIds: [done?.runId], timeoutSeconds: 0 }),
    );
    await step("subagents.cancel.outside-tree", asS("subagents", { action: "cancel", runId: outsideRunId }));
    await step(
      "sessions_history.assistant-message",
      asS("sessions_history", { sessionKey: String(done?.childSessionKey), limit: 1 }),
    );

    // Listing: one row that ran, a page by offset, the archive.
    await step("sessions_list.row", asS("sessions_list", { label: `golden-done-${u}` }));
    await step("sessions_list.offset-page", as("sessions_list", { label: pairLabel, limit: 1, offset: 0 }));
    await step(
      "sessions.patch.archived",
      as("sessions", {
        action: "patch",
        sessionKey: archivable.key,
        archived: true,
        expectedSessionId: archivable.sessionId,
      }),
    );
    await step("sessions.patch.no-field", as("sessions", { action: "patch", sessionKey: archivable.key }));
    await step("sessions_list.archived-row", as("sessions_list", { label: archiveLabel, archived: true }));

    // Sends to T: a waited reply, a steer with nothing running, a missing key, then fire-and-forget (last:
    // its run is still on the Queue when the test ends).
    await step(
      "sessions_send.waited-ok",
      as("sessions_send", { sessionKey: T, message: "golden question", timeoutSeconds: 10 }),
    );
    await settleAll([T, R]);
    // T's own turn that calls a tool and then answers (the spawner's "look around" rule): the newest two
    // messages are the tool result and the final answer.
    const toolRun = await sendMessage(T, "look around");
    await driveUntil(
      [T],
      async () => (["queued", "running"].includes((await runOf(T, toolRun)).status) ? undefined : true),
      "T's tool turn",
    );
    await settleAll([T, R]);
    await step(
      "sessions_history.tool-result",
      as("sessions_history", { sessionKey: T, includeTools: true, limit: 2 }),
    );
    await step(
      "sessions_send.steer-no-active-run",
      as("sessions_send", { sessionKey: T, message: "golden steer", mode: "steer" }),
    );
    await step(
      "sessions_send.missing-key",
      as("sessions_send", { sessionKey: missing, message: "golden lost", timeoutSeconds: 0 }),
    );
    await step(
      "sessions_send.accepted",
      as("sessions_send", { sessionKey: T, message: "golden note", timeoutSeconds: 0 }),
    );

    // sessions_yield, from inside a run (its run token).
    const yielder = `agent:spawner:golden-y-${u}`;
    await step(
      "sessions_yield.yielded",
      invoke(
        { tool: "sessions_yield", args: { message: "golden pause" } },
        await runToken({ sessionKey: yielder, agentId: "spawner" }),
      ),
    );

    // Failure classes.
    await step("failure.unknown-tool", invoke({ tool: "sessions_teleport", args: {}, sessionKey: R }));
    await step("failure.tool-not-in-profile", invoke({ tool: "agents_list", args: {} }, AGENT_TOKENS.ops));
    await step("failure.bad-args", as("sessions_history", {}));
    await step("failure.bad-body", invoke({ args: {}, sessionKey: R }));
    await step("failure.malformed-json", invoke("{ not json"));
    await step("failure.policy-forbidden", as("sessions_history", { sessionKey: O }));
    await step("failure.unknown-session", as("sessions_history", { sessionKey: missing }));

    const actual = Object.fromEntries(
      Object.entries(answers).map(([name, answer]) => [name, observed(answer, expected[name]?.values)]),
    );
    // Every step has an expectation and every expectation a step.
    expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, { doc, ...want }] of Object.entries(expected)) {
      expect.soft(actual[name], `${name} (${doc}): ${answers[name]?.text}`).toEqual(want);
    }
  });
});
