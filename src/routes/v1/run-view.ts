import type { RunRecord } from "../../session/api";

/** SPEC agent.wait result: `ok`, `error` (failed or killed), or `timeout` (the wait, or the run, ran out). */
export function waitResult(run: RunRecord): {
  runId: string;
  status: "ok" | "error" | "timeout";
  runStatus: RunRecord["status"];
  reply?: string;
  error?: string;
  startedAt?: number;
  endedAt?: number;
} {
  const status =
    run.status === "ok" ? "ok" : run.status === "error" || run.status === "killed" ? "error" : "timeout";
  return {
    runId: run.runId,
    status,
    runStatus: run.status,
    ...(run.reply !== undefined && run.status === "ok" ? { reply: run.reply } : {}),
    ...(run.error !== undefined ? { error: run.error } : {}),
    ...(status === "timeout" && run.status !== "timeout"
      ? { error: "the run has not ended yet; wait again" }
      : {}),
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
  };
}
