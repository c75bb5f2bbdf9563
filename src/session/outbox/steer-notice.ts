import { thirdPartySecrets } from "../../auth/third-party-secret";
import { signatureHeader } from "../../channels/signature";
import { findAgent } from "../../config/agents";
import type { SwitchboardConfig } from "../../config/schema";
import type { OutboxPayload } from "../store/outbox-store";

/**
 * Tells a webhook agent that a message was steered into its run in flight (SPEC §14): a POST to its
 * URL of `{ type: "steer", runId, agentId, sessionKey, message }`, signed exactly as the run's own POST
 * (same secret, same `X-Switchboard-Signature`). Throws on what is worth retrying (network, 429, 5xx);
 * any other refusal is the agent's final answer and is only logged.
 */
export async function postSteerNotice(
  env: Env,
  config: SwitchboardConfig,
  notice: OutboxPayload<"steer_notice">,
): Promise<void> {
  const runtime = findAgent(config, notice.agentId)?.runtime;
  if (runtime?.type !== "webhook") return;
  // The run POST's secret: the agent's own, else the key derived for this agent alone.
  const secrets = await thirdPartySecrets(
    env,
    { use: "webhook-agent", agentId: notice.agentId },
    runtime.secretEnv,
  );
  const secret = secrets.ok ? secrets.secrets[0] : undefined;
  if (!secret) {
    const why = secrets.ok ? "no secret" : secrets.error;
    console.error(`steer ${notice.message.id}: ${why}; not sent to agent ${notice.agentId}`);
    return;
  }
  const body = JSON.stringify({ type: "steer", ...notice });
  const response = await fetch(runtime.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Switchboard-Signature": await signatureHeader(secret, body),
    },
    body,
  });
  await response.body?.cancel();
  if (response.status === 429 || response.status >= 500)
    throw new Error(`agent webhook answered the steer with HTTP ${response.status}`);
  if (!response.ok)
    console.warn(`steer ${notice.message.id}: agent webhook refused it with HTTP ${response.status}`);
}
