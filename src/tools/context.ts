import { agentApi } from "../agent-object/client";
import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { readShards } from "../index-db/shards";
import { openPlatformThread } from "../platforms/threads";
import type { Requester } from "../policy/requester";
import type { QueueMessage } from "../queue/messages";
import { deliveryQueue } from "../queue/queues";
import { sendTurnAndWaitResilient, sessionApi, waitForRunResilient } from "../session/client";
import type { ToolContext } from "./types";

/** The storage interfaces a tool call gets, bound to this Worker's (or object's) bindings. */
export function toolContext(
  env: Env,
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
    shards: readShards(env),
    session: (sessionKey) => sessionApi(env.SESSION, sessionKey),
    recordSend: (send) => sessionApi(env.SESSION, requester.sessionKey).recordSend(send),
    waitForRun: (sessionKey, runId, timeoutMs) =>
      waitForRunResilient(env.SESSION, sessionKey, runId, timeoutMs),
    sendTurnAndWait: (sessionKey, turn, timeoutMs) =>
      sendTurnAndWaitResilient(env.SESSION, sessionKey, turn, timeoutMs),
    agentSpend: (agentId, day) => agentApi(env, agentId).spend(day),
    openThread: (request) => openPlatformThread(env, config, request),
    agent: (agentId) => agentApi(env, agentId),
    sendToQueue: async (message: QueueMessage) => {
      await deliveryQueue(env, message).send(message, { contentType: "json" });
    },
  };
}
