import type { ErasureAnswer, ErasurePlan, ErasureRequest } from "../api";
import { liveRecord, readRecord, updateRecord } from "../record/record";
import { childKeys } from "../store/children";
import { eraseCollectorResults } from "../store/collector-store";
import { eraseFromSummary } from "../store/compaction-store";
import { eraseDeliveryQuotes, erasePayloads } from "../store/delivery-store";
import { appendEvent, systemEvent } from "../store/event-log";
import { addIndexSync, eraseOutboxQuotes } from "../store/outbox-store";
import { quotableTexts } from "../store/quoted-text";
import { eraseFlowTexts, eraseRunReplies, flowPartners, runsTriggeredBy } from "../store/run-store";
import { eraseRunStreams } from "../store/run-stream";
import { countSent, forgetSentTurns, sentTargets } from "../store/sent";
import { removeWatchers } from "../store/watchers";
import { eraseQuotes, firstSeqOf, sessionTexts, textsOfMessages } from "../transcript/erased-quotes";
import {
  ERASED_TEXT,
  eraseMessages,
  eraseRunMessages,
  matchingIds,
  messageSources,
  summaryAfterErasure,
} from "../transcript/erasure";

// Erasure (SPEC §23), the session object's two halves: the plan read from the erased session before it
// is deleted, and the copies erased in each other session, one transaction each (src/erasure/ drives it).

/** Who may hold copies of this session's text, and its children, from its own storage. */
export function readErasurePlan(sql: SqlStorage, sessionKey: string): ErasurePlan {
  const record = readRecord(sql);
  const children = childKeys(sql);
  const partners = new Set([
    ...sentTargets(sql),
    ...messageSources(sql),
    ...flowPartners(sql),
    ...(record?.spawn ? [record.spawn.requesterKey] : []),
    ...(record?.lineage ?? []),
    ...(record?.spawnedBy ? [record.spawnedBy] : []),
    ...(record?.parentSessionKey ? [record.parentSessionKey] : []),
  ]);
  partners.delete(sessionKey);
  for (const child of children) partners.delete(child);
  return {
    sessionKey: record?.sessionKey ?? sessionKey,
    partners: [...partners].sort(),
    children,
    exists: record !== undefined,
    sentRecords: countSent(sql),
    texts: sessionTexts(sql),
  };
}

/** Erases the request's copies held here (call inside a transaction); idempotent. */
export function writeErasure(sql: SqlStorage, request: ErasureRequest, now: number): ErasureAnswer {
  const match = { sourceKeys: request.sourceKeys, ...(request.sender ? { sender: request.sender } : {}) };
  // The words of the copies held here are looked for too (read before they are erased).
  const matchedIds = matchingIds(sql, match);
  const texts = quotableTexts([...(request.texts ?? []), ...textsOfMessages(sql, matchedIds)]);
  const copies = eraseMessages(sql, match);
  // What answered those messages (a reply, an announce step quoting the original request) goes too.
  const answering = runsTriggeredBy(sql, copies.ids);
  const answers = eraseRunMessages(sql, answering);
  eraseRunStreams(sql, answering, ERASED_TEXT);
  const replies = eraseRunReplies(sql, answering, ERASED_TEXT) + erasePayloads(sql, answering);
  // Exact quotes elsewhere here: tool results that read its history or search hits, the summary, what
  // is still owed (SPEC §23; a paraphrase is not found: README "Deletion and erasure").
  const quotes = eraseQuotes(sql, texts, ERASED_TEXT);
  const summaries = eraseFromSummary(
    sql,
    { fromSeq: firstSeqOf(sql, [...copies.ids, ...answers.ids]), texts },
    ERASED_TEXT,
  );
  const pending = eraseOutboxQuotes(sql, texts, ERASED_TEXT) + eraseDeliveryQuotes(sql, texts, ERASED_TEXT);
  const messages = {
    ids: [...new Set([...copies.ids, ...answers.ids, ...quotes.ids])],
    changed: copies.changed + answers.changed,
  };
  const sent = forgetSentTurns(sql, request.sourceKeys);
  const notices = removeWatchers(sql, request.sourceKeys);
  const flows = eraseFlowTexts(sql, request.sourceKeys, ERASED_TEXT);
  const results = eraseCollectorResults(sql, request.sourceKeys, ERASED_TEXT);
  if (messages.changed + quotes.changed > 0 && liveRecord(sql)) {
    // The title and preview may have shown an erased message; the index row is written again from them.
    updateRecord(sql, summaryAfterErasure(sql));
    addIndexSync(sql);
  }
  const quoted = quotes.changed + summaries + pending;
  if (messages.changed + sent + notices + flows + replies + results + quoted > 0)
    appendEvent(
      sql,
      systemEvent("erased", `erased ${messages.changed} messages of another session`, {
        data: { sessionKey: request.subjectKey, messages: messages.changed },
      }),
      now,
    );
  return {
    messageIds: messages.ids,
    messages: messages.changed,
    sent,
    notices,
    quotes: quotes.changed,
    summaries,
    pending,
  };
}
