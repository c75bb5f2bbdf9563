import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import type { Requester } from "../policy/requester";
import type { QueueMessage } from "../queue/messages";
import { sendTurnAndWaitResilient, sessionApi, waitForRunResilient } from "../session/client";
import type { ToolContext } from "./types";

/** The storage interfaces a tool call gets, bound to this Worker's (or object's) bindings. */
export function toolContext(
  env: Pick<Env, "DB" | "SESSION" | "DELIVERIES">,
  config: SwitchboardConfig,
  requester: Requester,
  callKey?: string,
  waitUntil?: (work: Promise<unknown>) => void,
): ToolContext {
  return {
    requester,
    ...(callKey ? { callKey } : {}),
    ...(waitUntil ? { waitUntil } : {}),
    config,
    keyOptions: keyOptionsOf(config),
    db: env.DB,
    session: (sessionKey) => sessionApi(env.SESSION, sessionKey),
    waitForRun: (sessionKey, runId, timeoutMs) =>
      waitForRunResilient(env.SESSION, sessionKey, runId, timeoutMs),
    sendTurnAndWait: (sessionKey, turn, timeoutMs) =>
      sendTurnAndWaitResilient(env.SESSION, sessionKey, turn, timeoutMs),
    sendToQueue: async (message: QueueMessage) => {
      await env.DELIVERIES.send(message, { contentType: "json" });
    },
  };
}
