import { capByBytes, MAX_HISTORY_BYTES, oversizePlaceholder, utf8Bytes } from "../../history/byte-cap";
import { cleanAssistantText } from "../../history/clean-assistant-text";
import { redactSecrets } from "../../history/redact";
import { usageNumbers } from "../../history/usage";
import { stripInterSessionHeader } from "../../messaging/inter-session";
import { subagentTaskBody } from "../../subagents/task-message";
import { messageText, type TranscriptMessage, toolRoles } from "../../transcript/message";
import type { ExactPage, HistoryPage, HistoryRequest } from "../api";
import { previewText } from "../record/derived-title";
import type { RecordChanges } from "../record/record";
import { appendEvents, messageEvents } from "../store/event-log";
import { addToOutbox } from "../store/outbox-store";
import { SAFE_COPY_COLUMNS, type SafeCopyRow, type SafeJson, safeCopy, safeJsonOf } from "./safe-copy";
import { oldestKeptSeq } from "./trim";

export interface AppendResult {
  imported: number;
  skipped: number;
  /** Summary fields the caller writes into the session record in the same transaction. */
  firstUserText?: string;
  lastMessagePreview?: string;
  newestTimestamp?: number;
}

/** The session-record fields an append changed: the first user text (for the title) and the preview. */
export function summaryChanges(
  appended: AppendResult,
): Pick<RecordChanges, "firstUserText" | "lastMessagePreview"> {
  return {
    ...(appended.firstUserText !== undefined ? { firstUserText: appended.firstUserText } : {}),
    ...(appended.lastMessagePreview !== undefined ? { lastMessagePreview: appended.lastMessagePreview } : {}),
  };
}

/**
 * What a title or preview shows of a message: the text after the header we put on a message routed from
 * another session (SPEC §5.3) or on a sub-agent's task (SPEC §5.4), known by its provenance; a header
 * says where a message came from, never what it is about.
 */
export function headlessText(message: TranscriptMessage, text: string): string {
  switch (message.provenance?.kind) {
    case "inter_session":
      return stripInterSessionHeader(text);
    case "subagent_task":
      return subagentTaskBody(text);
    default:
      return text;
  }
}

/** Text safe to keep in the index: reasoning and tool payloads removed, secrets masked. */
export function safeIndexText(message: TranscriptMessage): string {
  const text = messageText(message);
  return redactSecrets(message.role === "assistant" ? cleanAssistantText(text) : text).text;
}

/** Appends messages in order, skipping ids already stored; never reorders or rewrites a stored row. */
export function appendMessages(
  sql: SqlStorage,
  messages: readonly TranscriptMessage[],
  hasFirstUser: boolean,
): AppendResult {
  const result: AppendResult = { imported: 0, skipped: 0 };
  const appended: TranscriptMessage[] = [];
  for (const message of messages) {
    if (sql.exec("SELECT 1 FROM message WHERE id = ?", message.id).toArray().length > 0) {
      result.skipped++;
      continue;
    }
    const isTool = toolRoles.has(message.role);
    const body = JSON.stringify(message);
    const copy = safeCopy(message, body);
    sql.exec(
      `INSERT INTO message (id, role, chat_seq, timestamp, body, safe_body, safe_flags, safe_rules)
       VALUES (?, ?, CASE WHEN ? THEN NULL ELSE (SELECT COALESCE(MAX(chat_seq), 0) + 1 FROM message) END, ?, ?,
         ?, ?, ?)`,
      message.id,
      message.role,
      isTool ? 1 : 0,
      message.timestamp,
      body,
      copy.safeBody,
      copy.flags,
      copy.rules,
    );
    result.imported++;
    appended.push(message);
    result.newestTimestamp = Math.max(result.newestTimestamp ?? 0, message.timestamp);
    if (message.role !== "user" && message.role !== "assistant") continue;
    const text = headlessText(message, safeIndexText(message));
    if (!text.trim()) continue;
    if (message.role === "user" && !hasFirstUser && result.firstUserText === undefined)
      result.firstUserText = text.slice(0, 1000);
    result.lastMessagePreview = previewText(text);
  }
  appendEvents(sql, appended.flatMap(messageEvents));
  // The search index (SPEC §18) owes these messages: one coalescing entry per session, whose payload
  // moves with each append, so an entry replaced while a pass wrote the older one stays owed.
  if (appended.some((message) => SEARCHED_ROLES.has(message.role)))
    addToOutbox(sql, "search_index", "search", { throughSeq: messageCounts(sql).all });
  return result;
}

/** The roles whose text the search index keeps (tool results flagged by their role); never system notes. */
export const SEARCHED_ROLES: ReadonlySet<string> = new Set(["user", "assistant", "toolResult", "tool"]);

/** Messages after `afterSeq`, oldest first, at most `limit`: the search index's next chunk. */
export function readMessagesAfter(
  sql: SqlStorage,
  afterSeq: number,
  limit: number,
): { seq: number; message: TranscriptMessage }[] {
  return sql
    .exec<{ seq: number; body: string }>(
      "SELECT seq, body FROM message WHERE seq > ? ORDER BY seq LIMIT ?",
      afterSeq,
      limit,
    )
    .toArray()
    .map((row) => ({ seq: row.seq, message: JSON.parse(row.body) as TranscriptMessage }));
}

// One MAX per SELECT: SQLite answers a lone MAX from the index, but two in one SELECT scan the whole
// transcript (found by `npm run bench`: history on 100,000 messages, docs/benchmarks.md).
export const MESSAGE_COUNTS_SQL = `SELECT (SELECT COALESCE(MAX(seq), 0) FROM message) AS all_count,
  (SELECT COALESCE(MAX(chat_seq), 0) FROM message) AS chat_count`;

/** True if the transcript holds a message with this id. */
export function hasMessage(sql: SqlStorage, id: string): boolean {
  return sql.exec("SELECT 1 FROM message WHERE id = ?", id).toArray().length > 0;
}

/** Counts of stored messages: all, and those shown when tool messages are hidden. */
export function messageCounts(sql: SqlStorage): { all: number; chat: number } {
  const row = sql.exec<{ all_count: number; chat_count: number }>(MESSAGE_COUNTS_SQL).one();
  return { all: row.all_count, chat: row.chat_count };
}

/** The placeholder of a message too large for any page (byte-cap.ts), as safe JSON. */
function oversizeJson(safe: SafeJson): SafeJson {
  const json = JSON.stringify(oversizePlaceholder(JSON.parse(safe.json) as TranscriptMessage));
  return { ...safe, json, bytes: utf8Bytes(json) };
}

/**
 * The newest `limit` messages before `offset`, made safe (SPEC §5.2). Rows are read newest first and
 * only as far as the byte cap lets the page grow, so a page costs what it returns.
 */
export function readHistoryPage(sql: SqlStorage, request: HistoryRequest): HistoryPage {
  const counts = messageCounts(sql);
  const total = request.includeTools ? counts.all : counts.chat;
  const column = request.includeTools ? "seq" : "chat_seq";
  const end = total - request.offset;
  const start = Math.max(1, end - request.limit + 1);
  // `maxMessages` trimming (trim.ts) removed the oldest messages but kept the numbering: a page reaching
  // below the oldest kept one says so (SPEC §23's `historyGap`), and nothing older is left to page to.
  const oldest = total > 0 ? oldestKeptSeq(sql, column) : 1;
  const historyGap = oldest > 1 && start < oldest && end >= 1;
  let contentTruncated = false;
  let contentRedacted = false;
  // The stored safe copies as they are: the page is their JSON joined, each measured by its stored length.
  function* newestFirst(): Generator<SafeJson> {
    if (end < 1) return;
    const rows = sql.exec<SafeCopyRow>(
      `SELECT ${SAFE_COPY_COLUMNS} FROM message WHERE ${column} BETWEEN ? AND ? ORDER BY ${column} DESC`,
      start,
      end,
    );
    for (const row of rows) {
      const safe = safeJsonOf(row);
      contentTruncated ||= safe.contentTruncated;
      contentRedacted ||= safe.contentRedacted;
      yield safe;
    }
  }
  const capped = capByBytes(newestFirst(), MAX_HISTORY_BYTES, (safe) => safe.bytes, oversizeJson);
  const returned = capped.items.length;
  const hasMore = request.offset + returned < total - oldest + 1;
  return {
    messagesJson: `[${capped.items.map((safe) => safe.json).join(",")}]`,
    droppedMessages: capped.droppedMessages > 0,
    contentTruncated,
    contentRedacted,
    bytes: capped.bytes,
    hasMore,
    ...(hasMore ? { nextOffset: request.offset + returned } : {}),
    totalMessages: total,
    ...(historyGap ? { historyGap: true as const } : {}),
  };
}

/** Stored message bodies after `afterSeq`, exactly as stored, for the JSONL export. */
export function readExportChunk(
  sql: SqlStorage,
  afterSeq: number,
  limit: number,
): { lines: string[]; lastSeq: number } {
  const rows = sql
    .exec<{ seq: number; body: string }>(
      "SELECT seq, body FROM message WHERE seq > ? ORDER BY seq LIMIT ?",
      afterSeq,
      limit,
    )
    .toArray();
  return { lines: rows.map((row) => row.body), lastSeq: rows.at(-1)?.seq ?? afterSeq };
}

/** Stored message bodies before `beforeSeq` (all of them: undefined), newest `limit`, oldest first. */
export function readExactPage(sql: SqlStorage, beforeSeq: number | undefined, limit: number): ExactPage {
  const rows = sql
    .exec<{ seq: number; body: string }>(
      "SELECT seq, body FROM message WHERE seq < ? ORDER BY seq DESC LIMIT ?",
      beforeSeq ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit).reverse();
  return {
    lines: page.map((row) => row.body),
    firstSeq: page[0]?.seq ?? 0,
    lastSeq: page.at(-1)?.seq ?? 0,
    hasOlder: rows.length > limit,
  };
}

/**
 * How many messages came after message `id`, counted as a history page counts them (every message with
 * tools, else chat messages only; a hidden tool message counts as the chat message before it): the
 * offset whose page ends at it. Undefined if there is no such message. Both numberings are dense from 1.
 */
export function countNewer(sql: SqlStorage, id: string, includeTools: boolean): number | undefined {
  const row = sql
    .exec<{ seq: number; chat_seq: number | null }>("SELECT seq, chat_seq FROM message WHERE id = ?", id)
    .toArray()[0];
  if (!row) return undefined;
  const counts = messageCounts(sql);
  if (includeTools) return counts.all - row.seq;
  const position =
    row.chat_seq ??
    sql
      .exec<{ chat_seq: number }>(
        "SELECT chat_seq FROM message WHERE seq < ? AND chat_seq IS NOT NULL ORDER BY seq DESC LIMIT 1",
        row.seq,
      )
      .toArray()[0]?.chat_seq ??
    0;
  return counts.chat - position;
}

/**
 * The last `count` non-tool messages, made safe, oldest first: the `messages` of a list row. Unlike a
 * history page, an assistant message keeps its `usage` (its numbers), as OpenClaw's list rows do.
 */
export function readRecentMessages(sql: SqlStorage, count: number): TranscriptMessage[] {
  if (count < 1) return [];
  const page = readHistoryPage(sql, { limit: count, offset: 0, includeTools: false });
  const messages = JSON.parse(page.messagesJson) as TranscriptMessage[];
  const assistants = messages.filter((message) => message.role === "assistant").map((message) => message.id);
  if (assistants.length === 0) return messages;
  const usages = new Map(
    sql
      .exec<{ id: string; usage: string }>(
        `SELECT id, json_extract(body, '$.usage') AS usage FROM message
         WHERE id IN (SELECT value FROM json_each(?)) AND json_type(body, '$.usage') = 'object'`,
        JSON.stringify(assistants),
      )
      .toArray()
      .map((row) => [row.id, usageNumbers(JSON.parse(row.usage))]),
  );
  return messages.map((message) => {
    const usage = message.role === "assistant" ? usages.get(message.id) : undefined;
    return usage ? { ...message, usage } : message;
  });
}

/** Empties the transcript (a new session replacing a deleted one's leftovers). */
export function clearTranscript(sql: SqlStorage): void {
  sql.exec("DELETE FROM message");
}

/** One stored message by id, exactly as stored. */
export function readMessage(sql: SqlStorage, id: string): TranscriptMessage | undefined {
  const row = sql.exec<{ body: string }>("SELECT body FROM message WHERE id = ?", id).toArray()[0];
  return row ? (JSON.parse(row.body) as TranscriptMessage) : undefined;
}
