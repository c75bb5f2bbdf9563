import { expect } from "vitest";
import { withInterSessionHeader } from "../../src/messaging/inter-session";
import {
  createSession,
  createSpawned,
  findRun,
  indexedRunIds,
  storedRuns,
  transcript,
  UUID,
  uid,
} from "../support";

/** A sessions_send message as its target's transcript holds it: the header, and its provenance. */
export function sentMessage(from: string, text: string) {
  return {
    content: withInterSessionHeader(text, { sessionKey: from, channel: "unknown", tool: "sessions_send" }),
    provenance: {
      kind: "inter_session",
      sourceSessionKey: from,
      sourceChannel: "unknown",
      sourceTool: "sessions_send",
      hop: 1,
    },
  };
}

/** A failed send: exactly `{ runId, status, error, sessionKey? }`, with a fresh runId no run carries. */
export async function expectFailure(
  result: { runId?: string },
  expected: { status: "error" | "forbidden"; error: string; sessionKey?: string },
): Promise<void> {
  expect(result).toEqual({ runId: expect.stringMatching(UUID), ...expected });
  expect(await findRun(result.runId)).toBeUndefined();
}

/** Nothing was written for this session: no message, no run. */
export async function expectUntouched(key: string): Promise<void> {
  expect(await transcript(key)).toEqual([]);
  expect(await storedRuns(key)).toEqual([]);
  expect(await indexedRunIds(key)).toEqual([]);
}

/** A main-agent requester and a child it spawned (labelled `kid-<u>`). */
export async function family(prefix: string) {
  const u = uid();
  const requester = `agent:main:${prefix}-r-${u}`;
  const child = `agent:main:${prefix}-c-${u}`;
  await createSession({ agentId: "main", key: requester });
  await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: requester, label: `kid-${u}` });
  return { u, requester, child };
}
