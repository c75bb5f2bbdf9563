import { expect } from "vitest";
import { ADMIN } from "./auth";
import { driveUntil, runAlarms } from "./drive";
import { callsArrived } from "./fake-services";
import { call } from "./http";
import { session, storedRuns } from "./sessions";
import { openStream } from "./streams";
import type { RunRecord, RunWaitResult, WebhookPost } from "./wire";

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

/**
 * `POST /v1/runs/{runId}/wait` (as the operator unless told): waits server-side for the run; expects 200.
 * Naming its session finds a run the index does not hold yet (one cut by a restart before its end).
 */
export async function waitRun(
  runId: string | undefined,
  timeoutMs = 10_000,
  token = ADMIN,
  sessionKey?: string,
): Promise<RunWaitResult> {
  const waited = await call<RunWaitResult>("POST", `/v1/runs/${present(runId)}/wait`, {
    token,
    body: { timeoutMs, ...(sessionKey === undefined ? {} : { sessionKey }) },
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
 * Waits on the run's own stream for `run_started` (written in the transaction that marks it `running`)
 * and returns the run as it is then: for a run in flight that a test steers, kills or lists.
 */
export async function runStarted(runId: string | undefined): Promise<RunRecord> {
  const stream = await openStream(`/v1/runs/${present(runId)}/events?after=0`);
  try {
    await stream.until((event) => event.event === "run_started");
  } finally {
    await stream.close();
  }
  return getRun(runId);
}

/**
 * For a `hook-async-rec` run of `key` (the agent answers 202 and posts its result later): waits for the
 * agent to get the run's POST (the fake service's signal), then runs the session's alarm once. The alarm
 * waits for the run loop under way, which ends only once the 202 is in and the run is marked deferred, so
 * the run is deferred when this returns (checked). Returns the POST; its runToken posts the result.
 */
export async function deferredRun(key: string, runId: string | undefined): Promise<WebhookPost> {
  const [post] = await callsArrived<WebhookPost>("hook-async-rec", 1, present(runId));
  if (!post) throw new Error(`no webhook post for run ${runId}`);
  await runAlarms([key]);
  expect(await getRun(runId)).toMatchObject({ status: "running", deferred: true });
  return post.json;
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
