import { loadConfig } from "../config/load";
import { agentApi } from "./client";

/** One agent's outcome of the daily cron: its pass ran, was made lately already, or failed to start. */
export interface DailyWake {
  agentId: string;
  outcome: "ran" | "skipped" | "failed";
}

/**
 * The Worker's daily cron trigger (wrangler.toml `[triggers]`, src/index.ts `scheduled`; SPEC §23): every
 * configured agent's object makes its maintenance pass, including agents whose object nothing woke since
 * the deploy (its own alarm arms the pass only once something calls it). Each object skips a pass made
 * within the last 20 hours by its alarm or an earlier cron (scheduler.ts `dailyPass`), so the two never
 * both run the day's pass. The agents' passes run side by side, each in its own object; a failure is
 * logged, and that object's alarm tries again within the hour.
 */
export async function wakeDailyPasses(env: Env): Promise<DailyWake[]> {
  const loaded = loadConfig(env);
  if (!loaded.ok) {
    console.warn(`maintenance: the daily cron found no valid configuration: ${loaded.error}`);
    return [];
  }
  const agentIds = loaded.config.agents.list.map((agent) => agent.id);
  return Promise.all(
    agentIds.map(async (agentId): Promise<DailyWake> => {
      try {
        const ran = await agentApi(env, agentId).maintenanceDaily(agentId);
        return { agentId, outcome: ran ? "ran" : "skipped" };
      } catch (cause) {
        console.warn(`maintenance: the daily cron could not reach agent ${agentId}: ${String(cause)}`);
        return { agentId, outcome: "failed" };
      }
    }),
  );
}
