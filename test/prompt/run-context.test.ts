import { describe, expect, it } from "vitest";
import {
  modelRequests,
  nth,
  sendMessage,
  toolWithConfig,
  transcript,
  uid,
  waitRun,
  workerConfigWith,
} from "../support";
import { requester, settleAll, spawnOk } from "../support/subagents";

/*
 * What a run is given as its system prompt, end to end (SPEC §20): the research agent's scripted rule
 * answers with `{{system}}` (test/support/test-config.ts), and an openai agent's model stand-in records
 * the system message it was sent.
 */
const INSTRUCTIONS = "You are the researcher. Cite your sources.";
const ASK = "show your system prompt";

describe("a run's system prompt, as the executor builds it", () => {
  it("a message: the agent's instructions, then the session and the time, UTC and the agent's zone", async () => {
    const key = await requester("research", "ctx-msg");
    const run = await waitRun(await sendMessage(key, ASK));
    expect(run.status).toBe("ok");
    const reply = String(run.reply);
    expect(
      reply.startsWith(`${INSTRUCTIONS}\n\n## Run context (written by Switchboard)\nSession: ${key} (`),
    ).toBe(true);
    expect(reply).toMatch(/\nCurrent time: \d{4}-\d\d-\d\d \d\d:\d\d UTC; .+ Asia\/Tokyo$/);
  });

  it("an inter-session message: the agent-to-agent context of SPEC §5.3", async () => {
    const from = await requester("main", "ctx-a2a");
    const to = await requester("research", "ctx-a2a-target");
    // `all` visibility: main may reach another agent's session (the test configuration's is `tree`).
    const config = workerConfigWith((document) => {
      document.tools.sessions.visibility = "all";
    });
    const sent = await toolWithConfig(config, "sessions_send", from, {
      sessionKey: to,
      message: ASK,
      timeoutSeconds: 15,
    });
    expect(sent).toMatchObject({ status: "ok" });
    const reply = String((sent as { reply?: string }).reply);
    expect(reply).toContain("\n### Inter-session message\nAgent-to-agent message.\n");
    expect(reply).toContain(`Agent 2 (you, the target): agent research, session ${to}`);
    await settleAll([from, to]);
  });

  it("a sub-agent's first run: its rules in the system prompt, its task alone in the first message", async () => {
    const r = await requester("main", "ctx-spawn");
    const { child, runId } = await spawnOk(r, { task: ASK, agentId: "research" });
    const run = await waitRun(runId);
    const reply = String(run.reply);
    expect(reply.startsWith(`${INSTRUCTIONS}\n\n`)).toBe(true);
    expect(reply).toContain(`Session: ${child} (kind other, channel `);
    expect(reply).toContain(
      `### Sub-agent\nYou are a sub-agent at depth 1 of at most 1, role leaf.\nYour requester is ${r}.`,
    );
    expect(reply).toContain("never to the end user");
    expect(reply).toContain("ANNOUNCE_SKIP");
    expect(reply).not.toContain(`[Subagent Task]: ${ASK}`);
    expect((await transcript(child))[0]?.content).toBe(`[Subagent Task]: ${ASK}`);
    await settleAll([child, r]);
  });

  it("reaches an openai model as its system message, instructions first", async () => {
    const key = await requester("model-tools-rec", "ctx-model");
    const marker = `instructions-${uid()}`;
    await waitRun(await sendMessage(key, marker));
    const first = nth(await modelRequests("model-tools-rec", marker), 0);
    const system = first.messages[0];
    expect(system?.role).toBe("system");
    expect(String(system?.content)).toMatch(
      /^You are the tools agent\. Use sessions_list when asked\.\n\n## Run context \(written by Switchboard\)\n/,
    );
  });
});
