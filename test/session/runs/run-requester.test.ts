import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../../../src/session/api";
import { runRequester } from "../../../src/session/runs/run-executor";
import type { RunRow } from "../../../src/session/store/run-store";
import { workerConfig } from "../../support/config";

const run: RunRow = {
  seq: 1,
  runId: "r-1",
  status: "running",
  deferred: 0,
  timeoutMs: 60_000,
  createdAt: 0,
  attempts: 0,
  retries: [],
};

const record = (sessionKey: string, spawnDepth: number): SessionRecord => ({
  sessionKey,
  sessionId: "s-1",
  agentId: "main",
  createdAt: 0,
  updatedAt: 0,
  spawnDepth,
  version: 1,
});

describe("the session a run acts as", () => {
  it("a thread-bound child (its key is its thread's, SPEC §21) is a sub-agent by its spawn depth", () => {
    const key = "agent:main:tg-bot:group:-100123:topic:7";
    expect(runRequester(workerConfig(), record(key, 1), run, 0)).toMatchObject({
      isSubagent: true,
      depth: 1,
    });
    // The same chat's own session, which nobody spawned, is not.
    expect(runRequester(workerConfig(), record(key, 0), run, 0)).toMatchObject({ isSubagent: false });
  });
});
