import type { RunRecord } from "../../session/api";
import { type Column, DataTable } from "../data-table";
import { Cost, clip, Empty, Status, Tokens, Took, When } from "../ui";
import { Older } from "./older";

// An error is a line or two; a runtime that quotes a whole response body is cut here (the run keeps it).
const MAX_ERROR_CHARS = 500;
/** Runs shown at once; the older ones the inspection holds wait folded below them. */
export const RUNS_SHOWN = 5;

const RUN_COLUMNS: Column<RunRecord>[] = [
  {
    name: "Run",
    head: true,
    cell: (run) => (
      <>
        <code title={run.runId}>{run.runId.slice(0, 8)}</code>
        {run.deferred ? <span class="muted"> waiting for its agent</span> : null}
      </>
    ),
  },
  { name: "Status", cell: (run) => <Status value={run.status} /> },
  { name: "Queued", cell: (run) => <When at={run.createdAt} /> },
  { name: "Took", cell: (run) => <Took from={run.startedAt} to={run.endedAt} /> },
  // The model that answered: a fallback's when the primary failed (SPEC §20).
  {
    name: "Model",
    cell: (run) => (run.model ? <span title={run.provider}>{run.model}</span> : <span class="muted">–</span>),
  },
  {
    name: "Tokens",
    cell: (run) => (
      <span title={run.usage ? `${run.usage.input} in, ${run.usage.output} out` : undefined}>
        <Tokens count={run.usage?.total} />
      </span>
    ),
  },
  { name: "Cost", cell: (run) => <Cost usd={run.usage?.estimatedCostUsd} /> },
  {
    name: "Error",
    class: "run-error",
    wide: true,
    cell: (run) => (
      <>
        {run.error ? clip(run.error, MAX_ERROR_CHARS) : null}
        {run.retries.length > 0 ? (
          <span class="muted" title={run.retries.join("\n")}>
            {` (${run.retries.length} ${run.retries.length === 1 ? "retry" : "retries"})`}
          </span>
        ) : null}
      </>
    ),
  },
];

function RunTable({ runs, caption }: { runs: RunRecord[]; caption: string }) {
  return (
    <DataTable
      class="runs"
      columns={RUN_COLUMNS}
      rows={runs}
      rowAttrs={(run) => ({ "data-run": run.runId })}
      caption={caption}
    />
  );
}

/** The session's runs, newest first: status, timing, usage and how a failed one failed. */
export function SessionRuns({ runs }: { runs: RunRecord[] }) {
  if (runs.length === 0) return <Empty>No runs yet.</Empty>;
  const older = runs.slice(RUNS_SHOWN);
  return (
    <>
      <RunTable runs={runs.slice(0, RUNS_SHOWN)} caption="The newest runs" />
      {older.length > 0 ? (
        <Older id="runs-older" what={older.length === 1 ? "older run" : "older runs"} count={older.length}>
          <RunTable runs={older} caption="Older runs" />
        </Older>
      ) : null}
    </>
  );
}
