import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../../src/session/record/record";
import { runSessionInfo, runStartOf } from "../../../src/session/runs/run-start";
import { COMPLETION_CONTEXT } from "../../../src/subagents/completion";
import type { TranscriptMessage } from "../../../src/transcript/message";
import { workerConfig } from "../../support";

/** What started a run, as the executor reads it from the session (src/session/runs/run-start.ts). */
const config = workerConfig();
const record = (fields: Partial<SessionRecord>): SessionRecord =>
  ({
    sessionKey: "agent:research:discord:group:lab",
    sessionId: "s1",
    agentId: "research",
    createdAt: 0,
    updatedAt: 0,
    spawnDepth: 0,
    ...fields,
  }) as SessionRecord;
const trigger = (provenance?: TranscriptMessage["provenance"]): TranscriptMessage =>
  ({
    id: "m1",
    role: "user",
    content: "hi",
    timestamp: 0,
    ...(provenance ? { provenance } : {}),
  }) as TranscriptMessage;

describe("what started a run", () => {
  it("a person's message: nothing more; queued context: inter-session, or a completion's", () => {
    const plain = record({});
    expect(runStartOf(config, plain, {}, trigger({ kind: "external_user" }))).toEqual({ kind: "message" });
    expect(
      runStartOf(config, plain, { context: "Agent-to-agent message." }, trigger({ kind: "inter_session" })),
    ).toEqual({ kind: "inter-session", context: "Agent-to-agent message." });
    expect(
      runStartOf(config, plain, { context: COMPLETION_CONTEXT }, trigger({ kind: "subagent_completion" })),
    ).toEqual({ kind: "completion", context: COMPLETION_CONTEXT });
  });

  it("a sub-agent's task: its depth, the maximum of its agent, its requester, a collector's schema", () => {
    const schema = { type: "object" };
    const child = record({
      sessionKey: "agent:research:subagent:c1",
      spawnDepth: 1,
      spawn: {
        requesterKey: "agent:main:main",
        task: "t",
        mode: "run",
        cleanup: "keep",
        archiveAfterMinutes: 60,
        collect: { groupId: "g", outputSchema: schema },
      },
    });
    const task = trigger({ kind: "subagent_task", sourceSessionKey: "agent:main:main" });
    expect(runStartOf(config, child, {}, task)).toEqual({
      kind: "subagent",
      depth: 1,
      maxDepth: 1,
      requesterKey: "agent:main:main",
      collect: { outputSchema: schema },
    });
    // A later message to the same child is not its first run.
    expect(runStartOf(config, child, {}, trigger({ kind: "external_user" }))).toEqual({ kind: "message" });
  });

  it("names the session by its full key, kind, channel, chat type and label", () => {
    expect(runSessionInfo(config, record({ label: "Lab" }))).toEqual({
      key: "agent:research:discord:group:lab",
      kind: "group",
      channel: "discord",
      chatType: "group",
      label: "Lab",
    });
  });
});
