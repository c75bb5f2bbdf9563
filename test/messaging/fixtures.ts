import { expect } from "vitest";
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
