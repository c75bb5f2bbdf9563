import { describe, expect, it } from "vitest";
import type { SwitchboardConfig } from "../../src/config/schema";
import { withInterSessionHeader } from "../../src/messaging/inter-session";
import type { ToolContext } from "../../src/tools/types";
import {
  createSession,
  createSpawned,
  describeSession,
  requesterFor,
  send,
  sendWith,
  toolWithConfig,
  transcript,
  UUID,
  uid,
  workerConfig,
  workerConfigWith,
} from "../support";
import { shardsOf } from "../support/shards";
import { expectFailure, expectUntouched, family } from "./fixtures";

// SPEC §5.3 check order, part 1: which target (both/neither, label lookup, reference resolution).
// Part 2, from visibility on, is send-gates.test.ts.

function trappedContext(requesterKey: string): { ctx: ToolContext; touched: string[] } {
  const touched: string[] = [];
  const trap = (what: string) =>
    new Proxy(
      {},
      {
        get(_, property) {
          touched.push(`${what}.${String(property)}`);
          throw new Error(`${what} used`);
        },
      },
    );
  const config = workerConfig();
  const ctx: ToolContext = {
    requester: requesterFor(requesterKey),
    config,
    keyOptions: { mainKey: config.session.mainKey, scope: config.session.scope },
    shards: shardsOf(trap("db") as unknown as D1Database),
    session: (key) => {
      touched.push(`session(${key})`);
      throw new Error("session used");
    },
    recordSend: async () => {
      touched.push("recordSend");
      throw new Error("recordSend used");
    },
    waitForRun: async (key) => {
      touched.push(`waitForRun(${key})`);
      throw new Error("waitForRun used");
    },
    sendTurnAndWait: async (key) => {
      touched.push(`sendTurnAndWait(${key})`);
      throw new Error("sendTurnAndWait used");
    },
    agentSpend: async (agentId) => {
      touched.push(`agentSpend(${agentId})`);
      throw new Error("agentSpend used");
    },
    openThread: async () => {
      touched.push("openThread");
      throw new Error("openThread used");
    },
    agent: (agentId) => {
      touched.push(`agent(${agentId})`);
      throw new Error("agent used");
    },
    sendToQueue: async () => {
      touched.push("enqueue");
    },
  };
  return { ctx, touched };
}

describe("sessions_send: target selection", () => {
  it("both sessionKey and label → error, checked first (even for a target that does not exist)", async () => {
    const { requester, child, u } = await family("both");
    const first = await send(requester, { sessionKey: child, label: `kid-${u}`, message: "hi" });
    await expectFailure(first, { status: "error", error: "Give sessionKey or label, not both." });
    const again = await send(requester, {
      sessionKey: "agent:main:nowhere",
      label: "nothing",
      message: "hi",
    });
    await expectFailure(again, { status: "error", error: "Give sessionKey or label, not both." });
    expect(again.runId).not.toBe(first.runId);
    await expectUntouched(child);
  });

  it("neither sessionKey nor label → error before any storage call", async () => {
    const { requester } = await family("neither");
    await expectFailure(await send(requester, { message: "hi" }), {
      status: "error",
      error: "sessionKey or label required.",
    });
    // Blank strings count as absent (SPEC §5.0).
    await expectFailure(await send(requester, { sessionKey: "  ", label: "", message: "hi" }), {
      status: "error",
      error: "sessionKey or label required.",
    });
    await expectUntouched(requester);

    const { ctx, touched } = trappedContext(requester);
    expect(await sendWith(ctx, { message: "hi" })).toEqual({
      runId: expect.stringMatching(UUID),
      status: "error",
      error: "sessionKey or label required.",
    });
    expect(await sendWith(ctx, { sessionKey: "x", label: "y", message: "hi" })).toMatchObject({
      status: "error",
    });
    expect(touched).toEqual([]);
  });

  it("label not found → error naming the label and agent", async () => {
    const { requester, u } = await family("nolabel");
    await expectFailure(await send(requester, { label: `missing-${u}`, message: "hi" }), {
      status: "error",
      error: `No session labelled "missing-${u}" for agent main. Use sessions_list to find the session key.`,
    });
  });

  it("label on two sessions → ambiguous error; nothing is sent to either", async () => {
    const { requester, u } = await family("twins");
    const twins = [`agent:main:twin-a-${u}`, `agent:main:twin-b-${u}`];
    for (const key of twins)
      await createSpawned({ sessionKey: key, agentId: "main", spawnedBy: requester, label: `twin-${u}` });
    await expectFailure(await send(requester, { label: `twin-${u}`, message: "hi", timeoutSeconds: 0 }), {
      status: "error",
      error: `Label "twin-${u}" matches more than one session; use sessionKey.`,
    });
    for (const key of twins) await expectUntouched(key);
  });

  it("a unique label finds the target", async () => {
    const { requester, child, u } = await family("label");
    expect(await send(requester, { label: `kid-${u}`, message: "ping", timeoutSeconds: 5 })).toEqual({
      runId: expect.stringMatching(UUID),
      status: "ok",
      reply: "pong",
      sessionKey: child,
      targetDisposition: "queued",
      delivery: { status: "pending", mode: "announce" },
    });
  });

  it("label lookup in another agent follows the cross-agent rules before looking anything up", async () => {
    const { requester, u } = await family("xlabel");
    const research = `agent:research:xl-${u}`;
    await createSession({ agentId: "research", key: research, label: `findings-${u}` });
    const treeError =
      'Session send across agents is not allowed: tools.sessions.visibility=tree restricts to agent "main"; visibility=all and tools.agentToAgent.enabled=true are needed.';
    for (const label of [`findings-${u}`, `no-such-${u}`]) {
      await expectFailure(await send(requester, { label, agentId: "research", message: "hi" }), {
        status: "forbidden",
        error: treeError,
      });
    }

    const allVisible = (change: (document: SwitchboardConfig) => void = () => {}) =>
      workerConfigWith((document) => {
        document.tools.sessions.visibility = "all";
        change(document);
      });
    const a2aOff = allVisible((document) => {
      document.tools.agentToAgent.enabled = false;
    });
    expect(
      await toolWithConfig(a2aOff, "sessions_send", requester, {
        label: `findings-${u}`,
        agentId: "research",
        message: "hi",
      }),
    ).toEqual({
      runId: expect.stringMatching(UUID),
      status: "forbidden",
      error: "Agent-to-agent access is disabled; set tools.agentToAgent.enabled=true to allow it.",
    });
    const notAllowed = allVisible((document) => {
      document.tools.agentToAgent.allow = ["main"];
    });
    expect(
      await toolWithConfig(notAllowed, "sessions_send", requester, {
        label: `findings-${u}`,
        agentId: "research",
        message: "hi",
      }),
    ).toEqual({
      runId: expect.stringMatching(UUID),
      status: "forbidden",
      error:
        'Agent-to-agent access between "main" and "research" is not allowed by tools.agentToAgent.allow.',
    });
    await expectUntouched(research);

    expect(
      await toolWithConfig(allVisible(), "sessions_send", requester, {
        label: `findings-${u}`,
        agentId: "research",
        message: "status?",
        timeoutSeconds: 5,
      }),
    ).toEqual({
      runId: expect.stringMatching(UUID),
      status: "ok",
      reply: "Findings: status?",
      sessionKey: research,
      targetDisposition: "queued",
      delivery: { status: "pending", mode: "announce" },
    });
  });

  it("a label found on a session outside the tree is then refused by visibility; a bad agentId is an error", async () => {
    const { requester, u } = await family("labelvis");
    const sibling = `agent:main:lv-s-${u}`;
    await createSession({ agentId: "main", key: sibling, label: `sib-${u}` });
    // Found by label: the refusal does not name the key the caller did not give (issue 17, item 7).
    await expectFailure(await send(requester, { label: `sib-${u}`, message: "hi" }), {
      status: "forbidden",
      error:
        "Session send is restricted to the current session tree (tools.sessions.visibility=tree): the current session and the sessions it spawned.",
    });
    await expectUntouched(sibling);
    await expectFailure(
      await send(requester, { label: `sib-${u}`, agentId: "Not An Agent!", message: "hi" }),
      {
        status: "error",
        error: 'Invalid agentId "Not An Agent!".',
      },
    );
  });

  it("a sandboxed requester finds by label and sessionId only the sessions it spawned", async () => {
    const u = uid();
    const ops = `agent:ops:sb-r-${u}`;
    const stranger = `agent:ops:sb-s-${u}`;
    const spawned = `agent:ops:sb-c-${u}`;
    await createSession({ agentId: "ops", key: ops });
    await createSession({ agentId: "ops", key: stranger, label: `shared-${u}` });
    const strangerRow = await describeSession(stranger);
    await createSpawned({ sessionKey: spawned, agentId: "ops", spawnedBy: ops, label: `shared-${u}` });
    await createSession({ agentId: "ops", key: `agent:ops:sb-s2-${u}`, label: `only-stranger-${u}` });

    await expectFailure(await send(ops, { label: `only-stranger-${u}`, message: "hi" }), {
      status: "error",
      error: `No session labelled "only-stranger-${u}" for agent ops. Use sessions_list to find the session key.`,
    });
    await expectFailure(await send(ops, { sessionKey: strangerRow.sessionId, message: "hi" }), {
      status: "error",
      error: `Session not found: ${strangerRow.sessionId}. Use the full session key from sessions_list.`,
    });
    // The label is on two sessions, but only one is visible to the restricted lookup: not ambiguous.
    // Its agent only ever answers ANNOUNCE_SKIP: no visible reply (SPEC §14).
    expect(await send(ops, { label: `shared-${u}`, message: "hi", timeoutSeconds: 5 })).toEqual({
      runId: expect.stringMatching(UUID),
      status: "no_reply",
      message: "No visible reply. Continue or retry if needed.",
      sessionKey: spawned,
      targetDisposition: "queued",
      delivery: { status: "skipped", mode: "announce" },
    });
    await expectUntouched(stranger);
  });

  it("reference not found → error (by key, legacy key and sessionId)", async () => {
    const { requester, u } = await family("noref");
    for (const reference of [`agent:main:missing-${u}`, `missing-${u}`, crypto.randomUUID()]) {
      // A full key names the target, so the failure carries it; a legacy key or a sessionId may not be one.
      const named = reference.startsWith("agent:") ? { sessionKey: reference } : {};
      await expectFailure(await send(requester, { sessionKey: reference, message: "hi" }), {
        status: "error",
        error: `Session not found: ${reference}. Use the full session key from sessions_list.`,
        ...named,
      });
    }
  });
});

describe("sessions_send: the requester's channel in the header", () => {
  it("names the requester's recorded channel, for a target by key and by label alike", async () => {
    const u = uid();
    const requester = `agent:relay:chan-r-${u}`;
    await createSession({ agentId: "relay", key: requester, channel: "discord" });
    const byKey = `agent:relay:chan-k-${u}`;
    const byLabel = `agent:relay:chan-l-${u}`;
    await createSpawned({ sessionKey: byKey, agentId: "relay", spawnedBy: requester });
    await createSpawned({ sessionKey: byLabel, agentId: "relay", spawnedBy: requester, label: `chan-${u}` });
    const header = withInterSessionHeader("from discord", {
      sessionKey: requester,
      channel: "discord",
      tool: "sessions_send",
    });
    for (const [target, args] of [
      [byKey, { sessionKey: byKey }],
      [byLabel, { label: `chan-${u}` }],
    ] as const) {
      const result = await send(requester, { ...args, message: "from discord", timeoutSeconds: 5 });
      expect(result).toMatchObject({ status: "ok", sessionKey: target });
      const [request] = (await transcript(target)).filter((message) =>
        String(message.content).endsWith("\n\nfrom discord"),
      );
      expect(request).toMatchObject({ content: header, provenance: { sourceChannel: "discord" } });
    }
  });
});
