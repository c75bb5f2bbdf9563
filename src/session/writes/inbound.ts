import { isChannelOwner } from "../../channels/inbound";
import { parseSendCommand, sendCommandConfirmation } from "../../channels/send-command";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { resolveSendPolicy, sendPolicySubject } from "../../policy/send-policy";
import type { Provenance, TranscriptMessage } from "../../transcript/message";
import type { InboundChannelMessage, ReplyTarget } from "../api";
import { chatOf, liveRecord, type SessionRecord, updateRecord } from "../record/record";
import { holdGroupContext, takeGroupContext } from "../store/group-context";
import { addIndexSync } from "../store/outbox-store";
import { findRun } from "../store/run-store";
import { appendMessages, hasMessage, summaryChanges } from "../transcript/transcript";
import { type InboundWrite, writeBusyTurn } from "./busy";
import { addPost } from "./posts";
import { writeCreation, writeImport } from "./writes";

/**
 * An inbound channel message, all of it in the caller's one transaction: the session created if there is
 * none, then an owner's `/send` command applied with its answer, or the message recorded and its turn
 * queued as the channel's busy mode says (writes/busy.ts), or (the send policy denies the chat) only recorded. One decision, taken here on the record the
 * write sees: a cut can never leave the chat told one thing while the policy says another, and a
 * redelivery (which changes nothing) cannot undo a later command.
 */
export function writeInboundMessage(
  sql: SqlStorage,
  config: SwitchboardConfig,
  message: InboundChannelMessage,
  now: number,
): InboundWrite {
  const { channel, chatType } = message.init;
  if (!liveRecord(sql)) writeCreation(sql, message.init, now);
  let record = liveRecord(sql);
  if (!record) throw new Error("the session record was not written");
  const replyTo = message.init.deliveryContext;
  // Message ids are unique per chat on most channels: the session (this object) is in the dedupe key.
  const messageId = `channel:${channel}:${message.channelMessageId}`;
  const inbound = {
    messageId,
    text: message.text,
    provenance: {
      kind: "external_user" as const,
      sourceChannel: channel,
      // Who said it (in a group, or a main session shared by every peer): what `POST /v1/erase` finds a
      // person's messages by (SPEC §23).
      senderId: message.senderId,
      ...(message.senderName !== undefined ? { senderName: message.senderName } : {}),
    },
    replyTo,
    runId: message.runId,
  };
  if (message.context) {
    // Unaddressed group talk: held (the newest historyLimit) until the next addressed turn takes it in.
    const held = {
      id: messageId,
      role: "user" as const,
      content: message.text,
      provenance: { ...inbound.provenance, groupContext: true },
      timestamp: now,
    };
    const fresh = !hasMessage(sql, messageId) && holdGroupContext(sql, held, message.context.historyLimit);
    return { status: "context", duplicate: !fresh };
  }
  // Whatever this message does, the group talk held before it comes first in the transcript.
  if (!hasMessage(sql, messageId)) {
    const context = takeGroupContext(sql);
    if (context.length > 0) {
      writeImport(sql, record, context);
      record = liveRecord(sql) ?? record;
    }
  }
  const command = parseSendCommand(message.text);
  if (command && isChannelOwner(config, channel, { chatType, senderId: message.senderId })) {
    const duplicate = writeInbound(
      sql,
      record,
      { ...inbound, answer: sendCommandConfirmation(command), sendPolicy: command.policy },
      now,
    );
    return { status: "command", sendPolicy: liveRecord(sql)?.sendPolicy ?? "inherit", duplicate };
  }
  const subject = sendPolicySubject(
    {
      sessionKey: record.sessionKey,
      chatType,
      ...(record.sendPolicy ? { sendPolicy: record.sendPolicy } : {}),
    },
    channel,
    keyOptionsOf(config),
  );
  if (resolveSendPolicy(config.session.sendPolicy, subject) === "deny") {
    writeInbound(sql, record, inbound, now);
    return { status: "blocked" };
  }
  const first = findRun(sql, message.runId, messageId);
  if (first) return { status: "accepted", runId: first.runId, duplicate: true };
  return writeBusyTurn(sql, record, config, message.busy, inbound, now);
}

/** An inbound channel message that starts no run (a `/send` command, or one the send policy blocks). */
interface InboundRecord {
  messageId: string;
  text: string;
  provenance: Provenance;
  replyTo: ReplyTarget;
  runId: string;
  /** Posted back to the chat (a command's confirmation). */
  answer?: string;
  /** A `/send` command's new send policy (null: inherit), written with the message, in one transaction. */
  sendPolicy?: "allow" | "deny" | null;
}

/** Records an inbound message without a run, and its answer if any; true if it was seen before. */
function writeInbound(sql: SqlStorage, record: SessionRecord, inbound: InboundRecord, now: number): boolean {
  const messages: TranscriptMessage[] = [
    {
      id: inbound.messageId,
      role: "user",
      content: inbound.text,
      provenance: inbound.provenance,
      timestamp: now,
    },
  ];
  if (inbound.answer) {
    messages.push({
      id: `${inbound.messageId}:answer`,
      role: "assistant",
      content: [{ type: "text", text: inbound.answer }],
      timestamp: now,
    });
  }
  const appended = appendMessages(sql, messages, record.firstUserText !== undefined);
  if (appended.imported === 0) return true;
  updateRecord(sql, {
    updatedAt: Math.max(record.updatedAt, now),
    lastChannel: inbound.replyTo.channel,
    lastTo: inbound.replyTo.to,
    deliveryContext: chatOf(inbound.replyTo),
    ...(inbound.sendPolicy !== undefined ? { sendPolicy: inbound.sendPolicy } : {}),
    ...summaryChanges(appended),
  });
  // The owner's own command is answered even when sending is now off: it is the reply they asked for.
  if (inbound.answer)
    addPost(sql, record, {
      runId: inbound.runId,
      purpose: "command",
      text: inbound.answer,
      target: inbound.replyTo,
    });
  addIndexSync(sql);
  return false;
}
