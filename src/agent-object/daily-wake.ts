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
 * both run the day's pass. The passes run side by side, WAKE_AT_ONCE at a time, each in its own object. A
 * pass that fails is tried again by its object's alarm within the hour; an object the cron could not reach
 * is logged, and the next day's cron (or its own alarm, once armed) makes its pass.
 */
export async function wakeDailyPasses(env: Env): Promise<DailyWake[]> {
  const loaded = loadConfig(env);
  if (!loaded.ok) {
    console.warn(`maintenance: the daily cron found no valid configuration: ${loaded.error}`);
    return [];
  }
  const agentIds = loaded.config.agents.list.map((agent) => agent.id);
  const wakes: DailyWake[] = [];
  for (let start = 0; start < agentIds.length; start += WAKE_AT_ONCE)
    wakes.push(
      ...(await Promise.all(agentIds.slice(start, start + WAKE_AT_ONCE).map((id) => wake(env, id)))),
    );
  return wakes;
}

/** Agents asked at once: a deployment of many agents never holds hundreds of calls open together. */
const WAKE_AT_ONCE = 25;

async function wake(env: Env, agentId: string): Promise<DailyWake> {
  try {
    const ran = await agentApi(env, agentId).maintenanceDaily(agentId);
    return { agentId, outcome: ran ? "ran" : "skipped" };
  } catch (cause) {
    console.warn(`maintenance: the daily cron could not reach agent ${agentId}: ${String(cause)}`);
    return { agentId, outcome: "failed" };
  }
}
