import type { DailySpend, UsageReport } from "./spend";

/** The agent object's public face (src/agent-object/agent-object.ts). */
export interface AgentApi {
  spend(day: string): Promise<DailySpend>;
  recordUsage(report: UsageReport): Promise<DailySpend>;
}

/** The agent object of an agent id. */
export function agentApi(env: Pick<Env, "AGENT">, agentId: string): AgentApi {
  return env.AGENT.getByName(agentId) as unknown as AgentApi;
}
