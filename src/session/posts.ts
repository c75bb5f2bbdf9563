import { keyOptionsOf } from "../config/key-options";
import type { SwitchboardConfig } from "../config/schema";
import { announceTargetFromKey, deriveChannel, parseSessionKey } from "../keys";
import { resolveSendPolicy, sendPolicySubject } from "../policy/send-policy";
import { addToOutbox } from "./outbox-store";
import type { DeliveryContext, SessionRecord } from "./record";

/**
 * Keys are lower-cased, channel ids are not always (Slack's `C024BE91L`): when the recorded delivery
 * context is the same chat, its spelling of the chat and thread ids is the one to post to.
 */
function spelledAsRecorded(target: DeliveryContext, recorded: DeliveryContext | undefined): DeliveryContext {
  if (!recorded || recorded.channel !== target.channel || recorded.to.toLowerCase() !== target.to)
    return target;
  const thread = recorded.threadId === undefined ? undefined : String(recorded.threadId);
  return {
    ...target,
    to: recorded.to,
    ...(thread !== undefined && thread.toLowerCase() === target.threadId ? { threadId: thread } : {}),
  };
}

/** The announce target: where a session's posts go (SPEC §8), from its key, else its delivery context. */
export function announceTarget(
  record: SessionRecord,
  config: SwitchboardConfig,
): DeliveryContext | undefined {
  const fromKey = announceTargetFromKey(record.sessionKey, keyOptionsOf(config));
  if (fromKey) return spelledAsRecorded(fromKey, record.deliveryContext);
  if (record.deliveryContext) return record.deliveryContext;
  return record.lastChannel && record.lastTo ? { channel: record.lastChannel, to: record.lastTo } : undefined;
}

/** The session's channel as other sessions see it (SPEC §5.1 `channel`). */
export function sessionChannel(record: SessionRecord, config: SwitchboardConfig): string {
  const parsed = parseSessionKey(record.sessionKey, keyOptionsOf(config));
  return parsed
    ? deriveChannel(parsed, { channel: record.recordedChannel, lastChannel: record.lastChannel })
    : "unknown";
}

/** A post to a channel: a run's reply, an announce, a command's answer. */
export interface Post {
  runId: string;
  /** What the post is (`reply`, `announce`, `command`): with the runId, its idempotency key. */
  purpose: string;
  text: string;
  target: DeliveryContext;
}

/** Owes the channel a post (through the outbox and the Queue); the idempotency key makes a redelivery one post. */
export function addPost(sql: SqlStorage, record: SessionRecord, post: Post): void {
  const idempotencyKey = `${post.runId}:${post.purpose}`;
  addToOutbox(sql, "post", `post:${idempotencyKey}`, {
    type: "outbound",
    ...post.target,
    text: post.text,
    sessionKey: record.sessionKey,
    runId: post.runId,
    idempotencyKey,
  });
}

/** `addPost` if the send policy allows it (SPEC §6: every outbound post); false when it does not. */
export function addPostIfAllowed(
  sql: SqlStorage,
  config: SwitchboardConfig,
  record: SessionRecord,
  post: Post,
): boolean {
  const subject = sendPolicySubject(record, post.target.channel, keyOptionsOf(config));
  if (resolveSendPolicy(config.session.sendPolicy, subject) === "deny") return false;
  addPost(sql, record, post);
  return true;
}
