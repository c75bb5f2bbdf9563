import type { ErasureAnswer, ErasurePlan, ErasureRequest } from "../api";
import { liveRecord, readRecord, updateRecord } from "../record/record";
import { childKeys } from "../store/children";
import { eraseCollectorResults } from "../store/collector-store";
import { erasePayloads } from "../store/delivery-store";
import { appendEvent, systemEvent } from "../store/event-log";
import { addIndexSync } from "../store/outbox-store";
import { eraseFlowTexts, eraseRunReplies, flowPartners, runsTriggeredBy } from "../store/run-store";
import { eraseRunStreams } from "../store/run-stream";
import { countSent, forgetSentTurns, sentTargets } from "../store/sent";
import { removeWatchers } from "../store/watchers";
import {
  ERASED_TEXT,
  eraseMessages,
  eraseRunMessages,
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
  };
}

/** Erases the request's copies held here (call inside a transaction); idempotent. */
export function writeErasure(sql: SqlStorage, request: ErasureRequest, now: number): ErasureAnswer {
  const match = { sourceKeys: request.sourceKeys, ...(request.sender ? { sender: request.sender } : {}) };
  const copies = eraseMessages(sql, match);
  // What answered those messages (a reply, an announce step quoting the original request) goes too.
  const answering = runsTriggeredBy(sql, copies.ids);
  const answers = eraseRunMessages(sql, answering);
  eraseRunStreams(sql, answering, ERASED_TEXT);
  const replies = eraseRunReplies(sql, answering, ERASED_TEXT) + erasePayloads(sql, answering);
  const messages = {
    ids: [...new Set([...copies.ids, ...answers.ids])],
    changed: copies.changed + answers.changed,
  };
  const sent = forgetSentTurns(sql, request.sourceKeys);
  const notices = removeWatchers(sql, request.sourceKeys);
  const flows = eraseFlowTexts(sql, request.sourceKeys, ERASED_TEXT);
  const results = eraseCollectorResults(sql, request.sourceKeys, ERASED_TEXT);
  if (messages.changed > 0 && liveRecord(sql)) {
    // The title and preview may have shown an erased message; the index row is written again from them.
    updateRecord(sql, summaryAfterErasure(sql));
    addIndexSync(sql);
  }
  if (messages.changed + sent + notices + flows + replies + results > 0)
    appendEvent(
      sql,
      systemEvent("erased", `erased ${messages.changed} messages of another session`, {
        data: { sessionKey: request.subjectKey, messages: messages.changed },
      }),
      now,
    );
  return { messageIds: messages.ids, messages: messages.changed, sent, notices };
}
