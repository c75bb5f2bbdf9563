import { describe, expect, it } from "vitest";
import {
  capturingContext,
  createSession,
  createSpawned,
  describeSession,
  requesterFor,
  send,
  sendWith,
  session,
  transcript,
  UUID,
} from "../support";
import { expectFailure, expectUntouched, family } from "./fixtures";

// SPEC §5.3 check order, part 2: visibility, thread-scoped target, (send policy: send-policy-enforced),
// synchronous self-send, and our hop limit.

describe("sessions_send: visibility, thread targets, self-send, hops", () => {
  it("visibility (send) under tree: another agent's session and non-children are forbidden", async () => {
    const { requester, child, u } = await family("vis");
    const research = `agent:research:vis-${u}`;
    const sibling = `agent:main:vis-s-${u}`;
    const grandchild = `agent:main:vis-g-${u}`;
    await createSession({ agentId: "research", key: research });
    await createSession({ agentId: "main", key: sibling });
    await createSpawned({ sessionKey: grandchild, agentId: "main", spawnedBy: child, spawnDepth: 2 });

    await expectFailure(await send(requester, { sessionKey: research, message: "hi" }), {
      status: "forbidden",
      error:
        'Session send across agents is not allowed: tools.sessions.visibility=tree restricts to agent "main"; visibility=all and tools.agentToAgent.enabled=true are needed.',
      sessionKey: research,
    });
    const treeError =
      "Session send is restricted to the current session tree (tools.sessions.visibility=tree): the current session and the sessions it spawned.";
    for (const key of [sibling, grandchild]) {
      await expectFailure(await send(requester, { sessionKey: key, message: "hi", timeoutSeconds: 0 }), {
        status: "forbidden",
        error: treeError,
        sessionKey: key,
      });
      await expectUntouched(key);
    }
    // By sessionId as well: resolution finds it, visibility refuses it, and the refusal does not name
    // the key the caller did not give (issue 17, item 7).
    const siblingRow = await describeSession(sibling);
    await expectFailure(await send(requester, { sessionKey: siblingRow.sessionId, message: "hi" }), {
      status: "forbidden",
      error: treeError,
    });
  });

  it("a thread-scoped target is refused before any run, in both modes; visibility is checked first", async () => {
    const { requester, u } = await family("thread");
    const discordThread = `agent:main:discord:group:th-${u}:thread:42`;
    const telegramTopic = `agent:main:telegram:group:-100${Date.now()}:topic:7`;
    // A thread under a channel the send policy denies: the thread check comes first.
    const deniedThread = `agent:main:discord:channel:th-${u}:thread:9`;
    for (const key of [discordThread, telegramTopic, deniedThread])
      await createSpawned({ sessionKey: key, agentId: "main", spawnedBy: requester });
    const strangerThread = `agent:main:discord:group:th-x-${u}:thread:1`;
    await createSession({ agentId: "main", key: strangerThread });

    const error = "Target is a thread-scoped session; send to the parent channel session key instead.";
    for (const key of [discordThread, telegramTopic, deniedThread]) {
      for (const timeoutSeconds of [0, 5]) {
        const { ctx, queued } = capturingContext(requesterFor(requester));
        await expectFailure(await sendWith(ctx, { sessionKey: key, message: "hi", timeoutSeconds }), {
          status: "error",
          error,
          sessionKey: key,
        });
        expect(queued).toEqual([]);
      }
      await expectFailure(await send(requester, { sessionKey: key, message: "hi" }), {
        status: "error",
        error,
        sessionKey: key,
      });
      await expectUntouched(key);
    }
    expect(await send(requester, { sessionKey: strangerThread, message: "hi" })).toMatchObject({
      status: "forbidden",
    });
  });

  it("synchronous self-send is refused; fire-and-forget self-send is accepted", async () => {
    const { requester, u } = await family("self");
    await session(requester).patch({ label: `me-${u}` });
    const error = "A session cannot send to itself and wait for the reply; use timeoutSeconds: 0.";
    // Every refusal past visibility names the resolved target, a label's too.
    for (const args of [
      { sessionKey: "current", message: "hi", timeoutSeconds: 5 },
      { sessionKey: requester, message: "hi" },
      { label: `me-${u}`, message: "hi" },
    ]) {
      await expectFailure(await send(requester, args), { status: "error", error, sessionKey: requester });
    }
    await expectUntouched(requester);

    const { ctx, queued } = capturingContext(requesterFor(requester));
    const accepted = await sendWith(ctx, {
      sessionKey: "current",
      message: "note to self",
      timeoutSeconds: 0,
    });
    expect(accepted).toEqual({
      runId: expect.stringMatching(UUID),
      status: "accepted",
      sessionKey: requester,
      targetDisposition: "queued",
      delivery: { status: "pending", mode: "announce" },
    });
    expect(queued).toMatchObject([{ type: "send", targetKey: requester, turn: { runId: accepted.runId } }]);
  });

  it("the hop limit stops a chain of sends (A→B→C→A) and the hop travels in the provenance", async () => {
    const { requester, child } = await family("hops");
    const second = await sendWith(capturingContext(requesterFor(requester, { hop: 1 })).ctx, {
      sessionKey: child,
      message: "forwarded once",
      timeoutSeconds: 5,
    });
    expect(second).toMatchObject({ status: "ok", reply: "Got it: forwarded once" });
    const [delivered] = await transcript(child);
    expect(delivered?.provenance).toEqual({
      kind: "inter_session",
      sourceSessionKey: requester,
      sourceChannel: "unknown",
      sourceTool: "sessions_send",
      hop: 2,
    });

    const { ctx, queued } = capturingContext(requesterFor(requester, { hop: 2 }));
    for (const timeoutSeconds of [0, 5]) {
      await expectFailure(await sendWith(ctx, { sessionKey: child, message: "again", timeoutSeconds }), {
        status: "error",
        error: "Agent-to-agent hop limit reached (2 chained sends); not forwarding further.",
        sessionKey: child,
      });
    }
    expect(queued).toEqual([]);
    const refused = (await transcript(child)).filter((message) => String(message.content).endsWith("again"));
    expect(refused).toEqual([]);
  });
});
