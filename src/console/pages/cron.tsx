import { describeDelivery, describeSchedule } from "../../cron/describe";
import type { CronJob, CronRun } from "../../cron/job-schema";
import { formatAhead } from "../../text/units";
import { type Column, DataTable } from "../data-table";
import { clip, Empty, KeyText, Status, sessionHref, Took, When } from "../ui";

export const cronJobHref = (job: Pick<CronJob, "agentId" | "jobId">) =>
  `/console/cron/${encodeURIComponent(job.agentId)}/${encodeURIComponent(job.jobId)}`;

/** When a job fires next: ahead of now as a person says it, or why never. */
function Next({ at, enabled }: { at: number | null; enabled: boolean }) {
  if (at === null) return <span class="muted">{enabled ? "not again" : "off"}</span>;
  const iso = new Date(at).toISOString();
  return (
    <time datetime={iso} title={iso}>
      {formatAhead(Math.max(0, at - Date.now()))}
    </time>
  );
}

const jobColumns: Column<CronJob>[] = [
  {
    name: "Job",
    head: true,
    cell: (job) => (
      <a href={cronJobHref(job)}>{job.name === job.jobId ? job.jobId : `${job.name} (${job.jobId})`}</a>
    ),
  },
  { name: "Agent", cell: (job) => job.agentId },
  { name: "Schedule", cell: (job) => describeSchedule(job.schedule) },
  { name: "Target", cell: (job) => job.sessionTarget },
  { name: "Delivery", cell: (job) => clip(describeDelivery(job.delivery), 60) },
  { name: "Next run", cell: (job) => <Next at={job.nextRunAt} enabled={job.enabled} /> },
  { name: "Last run", cell: (job) => <When at={job.lastRunAt} /> },
  { name: "From", cell: (job) => job.source },
];

/** The schedules page: every agent's jobs (SPEC §22 "a console page"). */
export function CronJobsView({ jobs }: { jobs: CronJob[] }) {
  return (
    <div class="cron-page">
      <h1>Schedules</h1>
      {jobs.length === 0 ? (
        <Empty>
          No scheduled job: add one with the cron tool, POST /v1/cron/jobs, `switchboard cron add` or
          cron.jobs in the configuration.
        </Empty>
      ) : (
        <DataTable
          class="cron-jobs"
          columns={jobColumns}
          rows={jobs}
          rowAttrs={(job) => ({ "data-job": `${job.agentId}/${job.jobId}` })}
          caption="Scheduled jobs"
        />
      )}
    </div>
  );
}

const runColumns: Column<CronRun>[] = [
  { name: "Scheduled", head: true, cell: (run) => <When at={run.scheduledAt} /> },
  { name: "Status", cell: (run) => <Status value={run.status} /> },
  { name: "Took", cell: (run) => <Took from={run.startedAt} to={run.endedAt} /> },
  { name: "Delivery", cell: (run) => run.deliveryStatus ?? "–" },
  {
    name: "Session",
    wide: true,
    cell: (run) => (
      <a href={sessionHref(run.sessionKey)}>
        <KeyText value={run.sessionKey} />
      </a>
    ),
  },
  { name: "Error", wide: true, class: "last-error", cell: (run) => (run.error ? clip(run.error, 200) : "") },
];

/** One job: its definition and its last runs (50 kept), newest first. */
export function CronJobView({ job, runs }: { job: CronJob; runs: CronRun[] }) {
  const payload =
    job.payload.kind === "agentTurn"
      ? `a turn: ${job.payload.message}`
      : `a system line${job.payload.wake === "now" ? " (starts a run)" : ""}: ${job.payload.text}`;
  const facts: [string, unknown][] = [
    ["Agent", job.agentId],
    ["Enabled", job.enabled ? "yes" : "no"],
    ["Schedule", describeSchedule(job.schedule)],
    ["Target", job.sessionTarget],
    ["Does", clip(payload, 300)],
    ["Delivery", describeDelivery(job.delivery)],
    ["Deleted after its run", job.deleteAfterRun ? "yes" : "no"],
    ["Next run", <Next at={job.nextRunAt} enabled={job.enabled} />],
    ["Last run", <When at={job.lastRunAt} />],
    ["Made by", job.source === "config" ? "the configuration (cron.jobs)" : "the API"],
  ];
  return (
    <div class="cron-job-page">
      <h1>Job {job.name}</h1>
      <dl class="facts">
        {facts.map(([name, value]) => (
          <div>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h2>Runs</h2>
      {runs.length === 0 ? (
        <Empty>No run yet.</Empty>
      ) : (
        <DataTable
          class="cron-runs"
          columns={runColumns}
          rows={runs}
          rowAttrs={(run) => ({ "data-run": run.runId })}
          caption="The job's last runs"
        />
      )}
    </div>
  );
}
