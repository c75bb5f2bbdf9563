import type { SwitchboardConfig } from "../config/schema";
import { canonicalizeKeyInput, type KeyOptions, mainSessionKey, parseSessionKey } from "../keys";

/** An isolated run's own session (SPEC §22): kind `cron`, hidden from listings as every run key is. */
export function isolatedRunKey(agentId: string, jobId: string, runId: string): string {
  return `agent:${agentId}:cron:${jobId}:run:${runId}`;
}

/** `session:<key>` as a canonical key of the job's agent, or why not. */
export function namedTargetKey(
  target: string,
  agentId: string,
  options: KeyOptions,
): { ok: true; key: string } | { ok: false; error: string } {
  const canonical = canonicalizeKeyInput(target.slice("session:".length), agentId, options);
  if (!canonical.ok) return canonical;
  const parsed = parseSessionKey(canonical.key, options);
  if (!parsed) return { ok: false, error: `"${canonical.key}" is not a session key` };
  if (parsed.agentId !== agentId)
    return { ok: false, error: `${canonical.key} is not a session of agent ${agentId}` };
  if (parsed.isCronRun || parsed.isSubagent)
    return { ok: false, error: `${canonical.key} is a run or sub-agent session, not a lasting target` };
  return { ok: true, key: canonical.key };
}

/** The session a run of the job goes to: its own (isolated), the agent's main, or the named one. */
export function runTargetKey(
  job: { agentId: string; jobId: string; sessionTarget: string },
  runId: string,
  config: Pick<SwitchboardConfig, "session">,
): string | undefined {
  const options = { mainKey: config.session.mainKey, scope: config.session.scope };
  if (job.sessionTarget === "isolated") return isolatedRunKey(job.agentId, job.jobId, runId);
  if (job.sessionTarget === "main") return mainSessionKey(job.agentId, options);
  const named = namedTargetKey(job.sessionTarget, job.agentId, options);
  return named.ok ? named.key : undefined;
}
