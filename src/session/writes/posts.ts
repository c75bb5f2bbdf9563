import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { announceTargetFromKey, deriveChannel, parseSessionKey } from "../../keys";
import { resolveSendPolicy, sendPolicySubject } from "../../policy/send-policy";
import type { DeliveryKind } from "../api/api-deliveries";
import type { DeliveryContext, SessionRecord } from "../record/record";
import { addNotRequired } from "../store/delivery-ledger";
import { addDelivery } from "../store/delivery-store";
import { addToOutbox } from "../store/outbox-store";

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
  /** Its ledger kind (SPEC §16): `reply` unless said otherwise or the purpose is `announce`. */
  kind?: Extract<DeliveryKind, "announce" | "reply">;
  /** The platform message it answers (SPEC §21): quoted by the reply, a Discord interaction's to follow up. */
  origin?: PostOrigin;
  /** The message the reply was written into as it came (SPEC §21 Live): the post edits it. */
  draftMessageId?: string;
}

/** What a platform reply needs of the message it answers (the inbound half of issue 31 records it). */
export interface PostOrigin {
  messageId?: string;
  interaction?: { token: string; expiresAt: number };
}

/** A channel address as the ledger names a post's target: `channel:to`, `#thread` when there is one. */
export function channelAddress(target: DeliveryContext): string {
  return `${target.channel}:${target.to}${target.threadId !== undefined ? `#${target.threadId}` : ""}`;
}

const postKind = (post: Post) => post.kind ?? (post.purpose === "announce" ? "announce" : "reply");

/**
 * Owes the channel a post (through the outbox and the Queue), with its delivery record; the idempotency
 * key makes a redelivery one post.
 */
export function addPost(sql: SqlStorage, record: SessionRecord, post: Post): void {
  const idempotencyKey = `${post.runId}:${post.purpose}`;
  addDelivery(
    sql,
    postKind(post),
    { runId: post.runId, target: channelAddress(post.target) },
    {
      kind: "post",
      key: `post:${idempotencyKey}`,
      payload: {
        type: "outbound",
        ...post.target,
        text: post.text,
        ...(post.origin?.messageId ? { replyToMessageId: post.origin.messageId } : {}),
        ...(post.origin?.interaction ? { interaction: post.origin.interaction } : {}),
        ...(post.draftMessageId ? { draft: { messageId: post.draftMessageId } } : {}),
        sessionKey: record.sessionKey,
        runId: post.runId,
        idempotencyKey,
      },
    },
  );
}

/** A post nobody needs (the run answered `NO_REPLY`, the send policy denies it): recorded as such. */
export function addPostNotRequired(sql: SqlStorage, post: Omit<Post, "text">, reason: string): void {
  addNotRequired(
    sql,
    postKind({ ...post, text: "" }),
    { runId: post.runId, target: channelAddress(post.target) },
    reason,
  );
}

/** `addPost` if the send policy allows it (SPEC §6: every outbound post); false when it does not. */
export function addPostIfAllowed(
  sql: SqlStorage,
  config: SwitchboardConfig,
  record: SessionRecord,
  post: Post,
): boolean {
  const subject = sendPolicySubject(record, post.target.channel, keyOptionsOf(config));
  if (resolveSendPolicy(config.session.sendPolicy, subject) === "deny") {
    addPostNotRequired(sql, post, "the send policy denies posts to this channel");
    return false;
  }
  addPost(sql, record, post);
  return true;
}

/**
 * A run that ended without a reply leaves no partial one posted (SPEC §21 Live, busy `interrupt`): its
 * draft is deleted through the Queue. Not a delivery of the ledger: nothing was owed to anyone.
 */
export function addDraftRetraction(
  sql: SqlStorage,
  record: SessionRecord,
  post: Omit<Post, "text" | "purpose" | "kind">,
): void {
  addToOutbox(sql, "post", `post:${post.runId}:retract`, {
    type: "outbound",
    ...post.target,
    text: "",
    ...(post.origin?.interaction ? { interaction: post.origin.interaction } : {}),
    ...(post.draftMessageId ? { draft: { messageId: post.draftMessageId } } : {}),
    retract: true,
    sessionKey: record.sessionKey,
    runId: post.runId,
    idempotencyKey: `${post.runId}:retract`,
  });
}
