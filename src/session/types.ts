import type { PreparedAttachment } from "../subagents/attachments";
import type { DeliveryContext, MetaChanges, SpawnInfo } from "./meta";

export type StoreResult<T> =
  | { ok: true; value: T }
  | { ok: false; code: "not_found" | "conflict" | "forbidden"; message: string };

export interface CreateSessionInit {
  sessionKey: string;
  agentId: string;
  label?: string;
  displayName?: string;
  subject?: string;
  channel?: string;
  chatType?: "direct" | "group" | "channel";
  deliveryContext?: DeliveryContext;
  spawnedBy?: string;
  parentSessionKey?: string;
  spawnDepth?: number;
  spawn?: SpawnInfo;
  lineage?: string[];
  modelOverride?: string;
  thinkingLevel?: string;
  /** Files given to sessions_spawn, stored with the child for its runtime. */
  attachments?: PreparedAttachment[];
}

export type SessionPatch = Pick<
  MetaChanges,
  "label" | "displayName" | "sendPolicy" | "modelOverride" | "thinkingLevel"
>;

export interface ImportReceipt {
  imported: number;
  skipped: number;
  totalMessages: number;
}

export const notFound = <T>(): StoreResult<T> => ({
  ok: false,
  code: "not_found",
  message: "session not found",
});
