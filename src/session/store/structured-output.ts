import {
  EMPTY_STATE,
  judgeStructuredOutput,
  type StructuredAnswer,
  type StructuredState,
  structuredOutcome,
} from "../../subagents/structured-result";
import { ENDED_STATUSES, notFound, type Result } from "../api";
import { readRecord, type SessionRecord } from "../record/record";
import { findRun, type RunEnding, type RunRow } from "./run-store";

// Table `structured_output`: a collector run's structured_output calls, one row per run, kept with the
// run. Durable, so a run resumed after an eviction judges its next call against the calls it made before.

type StoredRow = {
  invalid_calls: number;
  recorded: number;
  result: string | null;
  schema_error: string | null;
};

function readState(sql: SqlStorage, runId: string): StructuredState | undefined {
  const row = sql
    .exec<StoredRow>(
      "SELECT invalid_calls, recorded, result, schema_error FROM structured_output WHERE run_id = ?",
      runId,
    )
    .toArray()[0];
  if (!row) return undefined;
  return {
    invalidCalls: row.invalid_calls,
    recorded: row.recorded === 1,
    ...(row.recorded === 1 ? { result: JSON.parse(row.result ?? "null") } : {}),
    ...(row.schema_error !== null ? { schemaError: row.schema_error } : {}),
  };
}

function writeState(sql: SqlStorage, runId: string, state: StructuredState): void {
  sql.exec(
    `INSERT INTO structured_output (run_id, invalid_calls, recorded, result, schema_error) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (run_id) DO UPDATE SET invalid_calls = excluded.invalid_calls, recorded = excluded.recorded,
       result = excluded.result, schema_error = excluded.schema_error`,
    runId,
    state.invalidCalls,
    state.recorded ? 1 : 0,
    state.recorded ? JSON.stringify(state.result ?? null) : null,
    state.schemaError ?? null,
  );
}

/** The schema a collector child's results must match, if it was spawned with one. */
const outputSchemaOf = (record: SessionRecord | undefined) => record?.spawn?.collect?.outputSchema;

/**
 * One `structured_output` call of a running run (call inside a transaction): judged against the run's
 * earlier calls, and the state after it written before the answer goes back.
 */
export function writeStructuredOutput(
  sql: SqlStorage,
  runId: string,
  result: unknown,
): Result<StructuredAnswer> {
  const record = readRecord(sql);
  if (!record) return notFound();
  const schema = outputSchemaOf(record);
  if (!schema)
    return {
      ok: false,
      code: "forbidden",
      message: "structured_output is only for a collector sub-agent spawned with an outputSchema",
    };
  if (findRun(sql, runId)?.status !== "running")
    return {
      ok: false,
      code: "conflict",
      message: "structured_output records a result of a run in progress",
    };
  const judged = judgeStructuredOutput(schema, readState(sql, runId) ?? EMPTY_STATE, result);
  writeState(sql, runId, judged.state);
  return { ok: true, value: judged.answer };
}

/**
 * A collector run's ending with its structured result (call inside the transaction that records it):
 * `structured`, else `schemaError`, both kept with the run; a run that ended `ok` without a valid result
 * ends `failed` with that error. A run that ended `ok` without reporting (it yielded or waits for its
 * children, or a late completion's run) is not the task's end and is left as it is; a killed or timed
 * out run keeps its status.
 */
export function structuredEnding(sql: SqlStorage, row: RunRow, ending: RunEnding): RunEnding {
  if (!outputSchemaOf(readRecord(sql))) return ending;
  if (ending.status === "ok" && ending.announce === false) return ending;
  const state = readState(sql, row.runId) ?? EMPTY_STATE;
  const outcome = structuredOutcome(state);
  if (outcome.schemaError !== undefined) writeState(sql, row.runId, { ...state, ...outcome });
  if (ending.status === "ok" && outcome.schemaError !== undefined)
    return { ...ending, ...outcome, status: "error", error: outcome.schemaError };
  return { ...ending, ...outcome };
}

/** What an ended collector run reports with its record (`GET /v1/runs/{id}`): `structured` or `schemaError`. */
export function structuredResultOf(
  sql: SqlStorage,
  record: SessionRecord,
  run: Pick<RunRow, "runId" | "status">,
): { structured?: unknown; schemaError?: string } {
  // Every other session's run lookups cost no extra query.
  if (!outputSchemaOf(record) || !ENDED_STATUSES.has(run.status)) return {};
  const state = readState(sql, run.runId);
  return state ? structuredOutcome(state) : {};
}

/** Forgets every run's calls (a new session replacing a deleted one's leftovers). */
export function clearStructuredOutputs(sql: SqlStorage): void {
  sql.exec("DELETE FROM structured_output");
}
