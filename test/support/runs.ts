import { expect } from "vitest";
import { ADMIN } from "./auth";
import { driveUntil } from "./drive";
import { call } from "./http";
import { session, storedRuns } from "./sessions";
import type { RunRecord, RunWaitResult } from "./wire";

/*
 * The run helpers take the runId as a test read it off the wire, so possibly undefined: a missing one
 * fails the test here, by name, instead of asking for `/v1/runs/undefined`.
 */
function present(runId: string | undefined): string {
  if (runId === undefined) throw new Error("no runId: the answer carried none");
  return runId;
}

/** `GET /v1/runs/{runId}` as the operator; expects 200 (fails the test otherwise) and returns the run. */
export async function getRun(runId: string | undefined): Promise<RunRecord> {
  const run = await call<RunRecord>("GET", `/v1/runs/${present(runId)}`, { token: ADMIN });
  expect(run.status, run.text).toBe(200);
  return run.json;
}

/** `GET /v1/runs/{runId}` as the operator: the run, or undefined while the run index does not know it (404). */
export async function findRun(runId: string | undefined): Promise<RunRecord | undefined> {
  const response = await call<RunRecord>("GET", `/v1/runs/${present(runId)}`, { token: ADMIN });
  if (response.status === 404) return undefined;
  expect(response.status, response.text).toBe(200);
  return response.json;
}

/** `POST /v1/runs/{runId}/wait` (as the operator unless told): waits server-side for the run; expects 200. */
export async function waitRun(
  runId: string | undefined,
  timeoutMs = 10_000,
  token = ADMIN,
): Promise<RunWaitResult> {
  const waited = await call<RunWaitResult>("POST", `/v1/runs/${present(runId)}/wait`, {
    token,
    body: { timeoutMs },
  });
  expect(waited.status, waited.text).toBe(200);
  return waited.json;
}

/** A run that has started and ended, so both its timestamps are set. */
export type EndedRun = RunRecord & { startedAt: number; endedAt: number };

/** The run, checked to have started and ended (fails the test if either timestamp is missing). */
export function ended(run: RunRecord): EndedRun {
  const { startedAt, endedAt } = run;
  if (startedAt === undefined || endedAt === undefined)
    throw new Error(`run ${run.runId} has not ended: ${JSON.stringify(run)}`);
  return { ...run, startedAt, endedAt };
}

/**
 * Looks at the run view until `accept` says yes: for states between start and end, like `running`, that
 * the run in flight brings about itself (each look is a request to the Worker, no sleep; bounded like
 * `driveUntil`). Drives no alarm: a handler run now would wait for the run in flight and end it. Where an
 * outside call marks the moment (a model round, a webhook post), wait on it instead: `callsArrived`.
 */
export function pollRun(runId: string | undefined, accept: (run: RunRecord) => boolean): Promise<RunRecord> {
  return driveUntil(
    [],
    async () => {
      const run = await getRun(runId);
      return accept(run) ? run : undefined;
    },
    `run ${runId} to reach the expected state`,
  );
}

/**
 * For `hook-async` sessions (the agent answers 202 and posts its result later): waits (driving `drive`)
 * for the next run of `key` waiting on its agent, and posts `text` as its result, as the agent would.
 * Returns the runId.
 */
export async function answerDeferred(
  key: string,
  text: string,
  drive: string[] = [key],
  beforeAnswer: () => Promise<void> = async () => {},
): Promise<string> {
  const waiting = () =>
    driveUntil(
      drive,
      async () => (await storedRuns(key)).find((row) => row.status === "running" && row.deferred === 1),
      `a deferred run on ${key}`,
    );
  const run = await waiting();
  await beforeAnswer();
  // Whatever happened meanwhile (a restart), the same run is still the one waiting for its agent.
  expect((await waiting()).runId).toBe(run.runId);
  const completed = await session(key).completeDeferredRun(run.runId, { text });
  expect(completed).toMatchObject({ ok: true, value: { status: "ok" } });
  return run.runId;
}
