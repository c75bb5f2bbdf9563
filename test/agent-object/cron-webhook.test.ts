import { describe, expect, it } from "vitest";
import { deriveKey } from "../../src/auth/purpose-keys";
import { verifySignatureHeader } from "../../src/channels/signature";
import { SIGNING_KEY } from "../support/auth";
import { addJob, jobRuns, makeDue, runSchedulerAlarm } from "../support/cron";
import { driveUntil, runAlarms } from "../support/drive";
import { fakeServicesUrl, recorded } from "../support/fake-services";
import { uid } from "../support/ids";
import { getRun } from "../support/runs";

/** A cron job's webhook body (SPEC §22). */
interface JobOutcome {
  jobId: string;
  runId: string;
  status: string;
  text: string | null;
  startedAt: number;
  endedAt: number;
}

const receiver = (scenario: string, id: string) => `${fakeServicesUrl()}/receiver/${scenario}/rec-${id}`;

/** What the receiver got, each POST checked to be signed with the outbound webhooks key. */
async function receivedSigned(id: string) {
  const key = await deriveKey(SIGNING_KEY, { use: "webhooks" });
  const posts = await recorded<JobOutcome>(id);
  for (const post of posts)
    expect(await verifySignatureHeader(key, post.headers["x-switchboard-signature"], post.body)).toBe(true);
  return posts;
}

/** Fires the job's slot by the scheduler's alarm; the slot's run as `runs` lists it. */
async function fireByAlarm(agentId: string, jobId: string) {
  await makeDue(agentId, jobId);
  await runSchedulerAlarm(agentId);
  const [run] = await jobRuns(agentId, jobId);
  if (!run) throw new Error("the alarm took no slot");
  return run;
}

/** Drives the run's session until `runs` shows the run's delivery settled as `status`. */
function deliverySettled(agentId: string, jobId: string, sessionKey: string, status: string) {
  return driveUntil(
    [sessionKey],
    async () => {
      const run = (await jobRuns(agentId, jobId))[0];
      return run?.deliveryStatus === status ? run : undefined;
    },
    `the job's delivery ${status}`,
  );
}

describe("a cron job's webhook delivery (SPEC §22)", () => {
  it("a slot fired by the alarm POSTs { jobId, runId, status, text, startedAt, endedAt } once, signed; runs shows it delivered", async () => {
    const jobId = `hooked-${uid()}`;
    const id = `cron-job-webhook-${uid()}`;
    await addJob("main", jobId, {
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: { kind: "agentTurn", message: "nightly report" },
      delivery: { mode: "webhook", url: receiver("ok", id) },
    });
    const taken = await fireByAlarm("main", jobId);
    const post = await driveUntil([taken.sessionKey], async () => (await receivedSigned(id))[0], "the POST");
    const run = await getRun(taken.runId);
    expect(post.headers["idempotency-key"]).toBe(`run:${taken.runId}`);
    expect(post.json).toEqual({
      jobId,
      runId: taken.runId,
      status: "ok",
      text: "Got it: nightly report",
      startedAt: run.startedAt,
      endedAt: run.endedAt,
    });
    expect(await deliverySettled("main", jobId, taken.sessionKey, "delivered")).toMatchObject({
      runId: taken.runId,
      status: "ok",
    });
    // Neither the session's alarms nor the scheduler's post it again.
    await runAlarms([taken.sessionKey], 3);
    await runSchedulerAlarm("main");
    expect(await receivedSigned(id)).toHaveLength(1);
  });

  it("a receiver answering 404 fails the delivery at once; runs shows it failed, the run itself ok", async () => {
    const jobId = `hooked-404-${uid()}`;
    const id = `cron-job-webhook-404-${uid()}`;
    await addJob("main", jobId, {
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: { kind: "agentTurn", message: "nobody home" },
      delivery: { mode: "webhook", url: receiver("status-404", id) },
    });
    const taken = await fireByAlarm("main", jobId);
    expect(await deliverySettled("main", jobId, taken.sessionKey, "failed")).toMatchObject({ status: "ok" });
    expect(await recorded(id)).toHaveLength(1);
  });
});
