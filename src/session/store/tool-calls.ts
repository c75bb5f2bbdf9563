import { z } from "zod";

const resultSchema = z.record(z.string(), z.unknown());

/** A tool call's recorded result (table `tool_call`), if this call of the run was made before. */
export function recordedToolCall(
  sql: SqlStorage,
  runId: string,
  callIndex: number,
  name: string,
): object | undefined {
  const row = sql
    .exec<{ name: string; result: string }>(
      "SELECT name, result FROM tool_call WHERE run_id = ? AND call_index = ?",
      runId,
      callIndex,
    )
    .toArray()[0];
  // A resumed model may ask for something else at that place: only the same tool replays.
  if (!row || row.name !== name) return undefined;
  const parsed = resultSchema.safeParse(JSON.parse(row.result));
  return parsed.success ? parsed.data : undefined;
}

/** Records a tool call's result (its JSON) before the run goes on (its next model round). */
export function recordToolCall(
  sql: SqlStorage,
  runId: string,
  callIndex: number,
  name: string,
  resultJson: string,
): void {
  sql.exec(
    `INSERT INTO tool_call (run_id, call_index, name, result) VALUES (?, ?, ?, ?)
     ON CONFLICT (run_id, call_index) DO UPDATE SET name = excluded.name, result = excluded.result`,
    runId,
    callIndex,
    name,
    resultJson,
  );
}

/** Forgets a run's tool calls (its end, or a new session replacing a deleted one). */
export function clearToolCalls(sql: SqlStorage, runId?: string): void {
  if (runId === undefined) sql.exec("DELETE FROM tool_call");
  else sql.exec("DELETE FROM tool_call WHERE run_id = ?", runId);
}
