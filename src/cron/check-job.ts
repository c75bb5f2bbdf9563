import { findAgent } from "../config/agents";
import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { badRequest } from "../errors";
import { assertAllowedWebhook } from "../webhooks/allowed-origin";
import type { JobDefinition } from "./job-schema";
import { namedTargetKey } from "./targets";

/**
 * The checks of a job that need the configuration (SPEC §22), before anything is stored: a configured
 * agent, a target of that agent, an announce channel that exists, a webhook URL of an allowed origin.
 * Throws a 400 naming the field; answers the target's session key for `session:<key>` (else undefined).
 */
export function checkJobAgainstConfig(config: SwitchboardConfig, job: JobDefinition): string | undefined {
  if (!findAgent(config, job.agentId)) throw badRequest(`agentId: unknown agent "${job.agentId}"`);
  let targetKey: string | undefined;
  if (job.sessionTarget.startsWith("session:")) {
    const named = namedTargetKey(job.sessionTarget, job.agentId, keyOptionsOf(config));
    if (!named.ok) throw badRequest(`sessionTarget: ${named.error}`);
    targetKey = named.key;
  }
  const { delivery } = job;
  if (
    delivery.mode === "announce" &&
    delivery.channel !== undefined &&
    !(delivery.channel in config.channels)
  )
    throw badRequest(`delivery.channel: unknown channel "${delivery.channel}"`);
  if (delivery.mode === "webhook") assertAllowedWebhook(delivery.url, config, "delivery.url");
  return targetKey;
}
