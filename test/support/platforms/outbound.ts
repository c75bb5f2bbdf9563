import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { loadConfig } from "../../../src/config/load";
import type { OutboundMessage } from "../../../src/queue/messages";
import { type DeliveryResult, deliverOutbound } from "../../../src/queue/outbound";
import { readRecord } from "../../../src/session/record/record";
import { addPost, type Post } from "../../../src/session/writes/posts";
import { inbound, postInbound } from "../channels";
import { driveUntil } from "../drive";
import { callsArrived, fakeServicesUrl, type RecordedRequest, recorded } from "../fake-services";
import { uid } from "../ids";
import { stub } from "../sessions";

/**
 * The outbound half of the chat platforms (SPEC §21) in tests: a post to a platform channel made and
 * delivered, the stand-in's script and recordings (test/support/platforms/outbound-stand-in.ts, served by
 * the fake services), and the producing session's ledger row.
 */

/** Tells the stand-in how to answer the next calls for `key` (a chat, channel or interaction token). */
export async function platformScript(
  key: string,
  answers: string[],
  options: { rejectFormatting?: boolean } = {},
): Promise<void> {
  const response = await fetch(`${fakeServicesUrl()}/platform-script/${encodeURIComponent(key)}`, {
    method: "POST",
    body: JSON.stringify({ answers, ...options }),
  });
  expect(response.status).toBe(200);
}

/** The calls the stand-in recorded for `key`, oldest first. */
export const platformCalls = <Body = Record<string, unknown>>(key: string) =>
  recorded<Body>(`platform:${key}`);

/** Waits for the stand-in's `count`-th call for `key`. */
export const platformCallsArrived = <Body = Record<string, unknown>>(key: string, count: number) =>
  callsArrived<Body>(`platform:${key}`, count);

/**
 * The calls for `key` after its first `skip`, once `count` of them are ones `pick` takes: a test waits
 * on the messages it names while the live calls (typing, status, placeholders; SPEC §21 Live) that come
 * with them are counted by nothing. With `driving`, those sessions' alarms run meanwhile (drive.ts):
 * what they owe each other (a child's completion, its requester's update) is tried again at once should
 * a first try fail under load, not 15 seconds later; the calls so far are returned.
 */
export async function platformCallsAfter(
  key: string,
  skip: number,
  count: number,
  pick: (call: RecordedRequest<Record<string, unknown>>) => boolean,
  driving?: string[],
): Promise<RecordedRequest<Record<string, unknown>>[]> {
  if (driving)
    return driveUntil(
      driving,
      async () => {
        const calls = (await platformCalls(key)).slice(skip);
        return calls.filter(pick).length >= count ? calls : undefined;
      },
      `${count} more call(s) to ${key}`,
    );
  let total = skip + count;
  for (;;) {
    const calls = (await platformCallsArrived(key, total)).slice(skip);
    const missing = count - calls.filter(pick).length;
    if (missing <= 0) return calls;
    total += missing;
  }
}

/** An outbound message to a platform channel, as the outbox hands it to the Queue. */
export function platformMessage(channel: string, fields: Partial<OutboundMessage> = {}): OutboundMessage {
  const runId = crypto.randomUUID();
  return {
    type: "outbound",
    channel,
    to: `group:${uid()}`,
    text: "hello",
    sessionKey: `agent:main:${channel}:group:p${uid()}`,
    runId,
    idempotencyKey: `${runId}:reply`,
    ...fields,
  };
}

/** One delivery attempt of `message`, as the Queue's consumer makes it. */
export async function deliverNow(message: OutboundMessage, partsSent = 0): Promise<DeliveryResult> {
  const config = loadConfig(env);
  if (!config.ok) throw new Error(config.error);
  return deliverOutbound(env, config.config, message, partsSent);
}

/** A row of a session's `delivery` table. */
export type LedgerRow = {
  delivery_id: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  payload: string | null;
  parts_sent: number;
};

/** The session's delivery rows for posts to `channel`, oldest first. */
export const ledgerRows = (key: string, channel: string) =>
  runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql
      .exec<LedgerRow>("SELECT * FROM delivery WHERE target LIKE ? ORDER BY created_at", `${channel}:%`)
      .toArray(),
  );

/** The session's first ledger row for `channel` once `ready` holds for it. */
export const ledgerRowOnce = (
  key: string,
  channel: string,
  ready: (row: LedgerRow) => boolean,
  what: string,
) =>
  driveUntil(
    [],
    async () => {
      const [row] = await ledgerRows(key, channel);
      return row && ready(row) ? row : undefined;
    },
    what,
  );

/**
 * A session (made by an inbound message on the `telegram` webhook channel) that owes `post` to a
 * platform channel: written in the object as a run's reply is, then handed to the Queue by its outbox.
 */
export async function owePlatformPost(post: Omit<Post, "runId" | "purpose">): Promise<string> {
  const u = uid();
  const posted = await postInbound(
    "telegram",
    inbound({ chatId: `dm-${u}`, senderId: `42${u}`, messageId: `m-${u}` }),
  );
  expect(posted.status, posted.text).toBe(202);
  const { sessionKey } = posted.json as { sessionKey: string };
  await runInDurableObject(stub(sessionKey), async (instance, state) => {
    const sql = state.storage.sql;
    state.storage.transactionSync(() => {
      const record = readRecord(sql);
      if (!record) throw new Error("no session record");
      addPost(sql, record, { ...post, runId: crypto.randomUUID(), purpose: "reply" });
    });
    await instance.alarm();
  });
  return sessionKey;
}

/** The texts of recorded calls, in order. */
export const textsOf = (calls: RecordedRequest<Record<string, unknown>>[], field = "text") =>
  calls.map((call) => call.json[field]);
