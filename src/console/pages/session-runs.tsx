import type { RunRecord } from "../../session/api";
import { clip, DataTable, Empty, Status, Tokens, Took, When } from "../ui";

// An error is a line or two; a runtime that quotes a whole response body is cut here (the run keeps it).
const MAX_ERROR_CHARS = 500;

/** The session's runs, newest first: status, timing, usage and how a failed one failed. */
export function SessionRuns({ runs }: { runs: RunRecord[] }) {
  if (runs.length === 0) return <Empty>No runs yet.</Empty>;
  return (
    <DataTable class="runs" columns={["Run", "Status", "Queued", "Took", "Tokens", "Error"]}>
      {runs.map((run) => (
        <tr data-run={run.runId}>
          <td>
            <code title={run.runId}>{run.runId.slice(0, 8)}</code>
            {run.deferred ? <span class="muted"> waiting for its agent</span> : null}
          </td>
          <td>
            <Status value={run.status} />
          </td>
          <td>
            <When at={run.createdAt} />
          </td>
          <td>
            <Took from={run.startedAt} to={run.endedAt} />
          </td>
          <td title={run.usage ? `${run.usage.input} in, ${run.usage.output} out` : undefined}>
            <Tokens count={run.usage?.total} />
          </td>
          <td class="run-error">
            {run.error ? clip(run.error, MAX_ERROR_CHARS) : null}
            {run.retries.length > 0 ? (
              <span class="muted" title={run.retries.join("\n")}>
                {` (${run.retries.length} ${run.retries.length === 1 ? "retry" : "retries"})`}
              </span>
            ) : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
