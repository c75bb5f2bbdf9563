import { describe, expect, it } from "vitest";
import { getSession, send, toolWithConfig, transcript, UUID, uid, workerConfigWith } from "../support";

/** The Worker's configuration with `visibility: all`, so a requester may reach other main sessions. */
const allVisible = () =>
  workerConfigWith((config) => {
    config.tools.sessions.visibility = "all";
  });

describe("sessions_send to a configured agent's main session that does not exist yet (SPEC §12)", () => {
  it("`main` and `agentId` alone create the target; visibility first; other keys and steer stay errors", async () => {
    const u = uid();
    const config = allVisible();
    // Visibility comes first: under the default `tree`, another agent's main is refused and not created.
    const refused = await send(`agent:main:cm-r-${u}`, { agentId: "research", message: "hi" });
    expect(refused).toMatchObject({ status: "forbidden" });
    expect((await getSession("agent:research:main")).status).toBe(404);

    // `main`: the requester agent's own main session.
    const byMain = await toolWithConfig(config, "sessions_send", `agent:steerable:cm-r-${u}`, {
      sessionKey: "main",
      message: "hello main",
      timeoutSeconds: 5,
    });
    expect(byMain).toEqual({
      runId: expect.stringMatching(UUID),
      status: "ok",
      reply: "steerable got: hello main",
      sessionKey: "agent:steerable:main",
      targetDisposition: "queued",
      delivery: { status: "pending", mode: "announce" },
    });
    expect((await getSession("agent:steerable:main")).json).toMatchObject({ agentId: "steerable" });

    // `agentId` alone: that agent's main session, across agents as agent-to-agent allows.
    const byAgent = await toolWithConfig(config, "sessions_send", `agent:main:cm-r-${u}`, {
      agentId: "research",
      message: "status?",
      timeoutSeconds: 5,
    });
    expect(byAgent).toMatchObject({
      status: "ok",
      reply: "Findings: status?",
      sessionKey: "agent:research:main",
    });
    expect((await transcript("agent:research:main")).map((message) => message.role)).toContain("assistant");

    // An agent that is not configured, a key that is not a main session, steer to a missing main.
    expect(
      await toolWithConfig(config, "sessions_send", `agent:main:cm-r-${u}`, {
        agentId: "ghost",
        message: "x",
      }),
    ).toEqual({
      runId: expect.stringMatching(UUID),
      status: "error",
      error: 'Agent "ghost" not found. Use agents_list to see the configured agents.',
    });
    const other = `agent:steerable:cm-missing-${u}`;
    expect(
      await toolWithConfig(config, "sessions_send", `agent:main:cm-r-${u}`, {
        sessionKey: other,
        message: "x",
      }),
    ).toMatchObject({
      status: "error",
      error: `Session not found: ${other}. Use the full session key from sessions_list.`,
    });
    expect(
      await toolWithConfig(config, "sessions_send", `agent:model-steer:cm-r-${u}`, {
        sessionKey: "main",
        message: "x",
        mode: "steer",
      }),
    ).toEqual({
      runId: expect.stringMatching(UUID),
      status: "error",
      error: "Target has no active run that accepts steering. Use mode=followup to start a new turn.",
      sessionKey: "agent:model-steer:main",
    });
    expect((await getSession("agent:model-steer:main")).status).toBe(404);
  });
});
