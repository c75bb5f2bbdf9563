import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { wakeSchedulers } from "../../src/agent-object/wake";
import { workerConfigWith } from "../support/config";
import { inScheduler } from "../support/cron";
import { uid } from "../support/ids";

/** The Worker's bindings with a `cron.jobs` entry for `agentId` (a deploy that configured a job). */
function envWithJobFor(agentId: string): Env {
  const config = workerConfigWith((document) => {
    document.cron.jobs.push({
      jobId: `wake-${uid()}`,
      agentId,
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: { kind: "agentTurn", message: "ping" },
    } as (typeof document.cron.jobs)[number]);
  });
  return { ...env, SWITCHBOARD_CONFIG: JSON.stringify(config) };
}

const notedAgent = (agentId: string) =>
  inScheduler(
    agentId,
    (sql) =>
      sql.exec<{ value: string }>("SELECT value FROM cron_meta WHERE key = 'agent_id'").toArray()[0]?.value,
  );

describe("configured jobs start after a deploy without anyone calling their agent (SPEC §22)", () => {
  it("an isolate's first request wakes each agent with configured jobs, once", async () => {
    // The agent's object as a deploy leaves it: never called, its scheduler knows nothing.
    await inScheduler("boss", (sql) => sql.exec("DELETE FROM cron_meta"));
    expect(await notedAgent("boss")).toBeUndefined();
    const deployed = envWithJobFor("boss");
    const first = createExecutionContext();
    expect(wakeSchedulers(deployed, first)).toEqual(["boss"]);
    await waitOnExecutionContext(first);
    expect(await notedAgent("boss")).toBe("boss");
    // Every later request of the isolate costs nothing: the same configuration is not woken again.
    const later = createExecutionContext();
    expect(wakeSchedulers(deployed, later)).toEqual([]);
    await waitOnExecutionContext(later);
  });

  it("a configuration without jobs wakes nobody", () => {
    expect(wakeSchedulers(env, createExecutionContext())).toEqual([]);
  });
});
