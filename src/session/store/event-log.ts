import type { Provenance, TranscriptMessage } from "../../transcript/message";
import {
  type EventActor,
  type EventKind,
  type RunStreamKind,
  runStreamKinds,
  type SessionEvent,
  type StateChanges,
} from "../api/api-events";
import { readRecord, updateRecord } from "../record/record";
import { eventsWritten } from "./feed-wake";
import { addIndexSync } from "./outbox-store";
import { appendRunEvent } from "./run-stream";
import { noteWatchedEvents } from "./watchers";

const isRunStreamKind = (kind: EventKind): kind is EventKind & RunStreamKind =>
  (runStreamKinds as readonly string[]).includes(kind);

/** Retention (SPEC §13): events older than this, and all but the newest MAX_EVENTS, are pruned. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_EVENTS = 10_000;
/** At most this many events in one `changesSince` answer. */
export const MAX_CHANGES = 200;

/**
 * An event to write. Run events also go to the run's stream, with `streamData` added there only (the
 * final reply or error rides on the run stream's terminal item, not in the session's log).
 */
export type NewEvent = Omit<SessionEvent, "seq" | "occurredAt"> & { streamData?: Record<string, unknown> };

const SYSTEM: EventActor = { type: "system" };

/** Who wrote a message: another session, a person on a channel, or the session and the service. */
export function actorOf(provenance: Provenance | undefined): EventActor {
  if (provenance?.kind === "inter_session")
    return provenance.sourceSessionKey
      ? { type: "agent", id: provenance.sourceSessionKey }
      : { type: "agent" };
  if (provenance?.kind === "external_user") return { type: "human" };
  return SYSTEM;
}

/**
 * The events of an appended message: its `message` event (the message itself stays in the transcript),
 * and `child_completed` before it when it is a sub-agent's completion.
 */
export function messageEvents(message: TranscriptMessage): NewEvent[] {
  const completed: NewEvent[] =
    message.provenance?.kind === "subagent_completion"
      ? [
          systemEvent("child_completed", "a sub-agent's completion arrived", {
            data: { childSessionKey: message.provenance.sourceSessionKey },
          }),
        ]
      : [];
  return [...completed, messageEvent(message)];
}

function messageEvent(message: TranscriptMessage): NewEvent {
  return {
    kind: "message",
    actor: actorOf(message.provenance),
    ...(message.runId ? { runId: message.runId } : {}),
    summary: `${message.role} message`,
    data: {
      messageId: message.id,
      role: message.role,
      ...(message.provenance ? { provenance: message.provenance } : {}),
    },
  };
}

/** A message steered into the run in flight (mode=steer), or the run restarted with one (subagents steer). */
export function steeredEvent(runId: string, provenance: Provenance | undefined): NewEvent {
  return { kind: "steered", actor: actorOf(provenance), runId, summary: "run steered" };
}

/** An event the session and the service caused (runs, patches, archiving). */
export function systemEvent(kind: EventKind, summary: string, fields: Partial<NewEvent> = {}): NewEvent {
  return { kind, actor: SYSTEM, summary, ...fields };
}

/**
 * Appends events in order (call inside the transaction of the change they describe): seq is dense, the
 * record's `stateVersion` follows, the index is owed the new version, and the live feed is woken.
 * Nothing is written for a session without a live record.
 */
export function appendEvents(sql: SqlStorage, events: readonly NewEvent[], now = Date.now()): SessionEvent[] {
  const record = readRecord(sql);
  if (!record || record.deletedAt !== undefined || events.length === 0) return [];
  let seq = record.stateVersion ?? 0;
  const written = events.map(({ streamData, ...event }): SessionEvent => {
    seq++;
    sql.exec(
      `INSERT INTO event (seq, kind, actor_type, actor_id, run_id, occurred_at, summary, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      seq,
      event.kind,
      event.actor.type,
      event.actor.id ?? null,
      event.runId ?? null,
      now,
      event.summary,
      event.data ? JSON.stringify(event.data) : null,
    );
    if (event.runId && isRunStreamKind(event.kind))
      appendRunEvent(sql, event.runId, event.kind, { ...event.data, ...streamData }, now);
    return { ...event, seq, occurredAt: now };
  });
  updateRecord(sql, { stateVersion: seq });
  noteWatchedEvents(sql, record.sessionKey, written);
  addIndexSync(sql);
  pruneEvents(sql, seq, now);
  eventsWritten(sql);
  return written;
}

export function appendEvent(sql: SqlStorage, event: NewEvent, now = Date.now()): SessionEvent | undefined {
  return appendEvents(sql, [event], now)[0];
}

function pruneEvents(sql: SqlStorage, head: number, now: number): void {
  sql.exec(
    "DELETE FROM event WHERE seq <= ? OR occurred_at < ?",
    head - MAX_EVENTS,
    now - EVENT_RETENTION_MS,
  );
}

/**
 * SPEC §23's bound on the log, inside §13's outer one: events older than `before` (now less the agent's
 * `runRetention`) go with the ended runs they describe, at most `limit` a call, oldest first (through
 * `event_time`). Cut as a prefix, through the newest seq among them, so the log stays dense from its
 * oldest kept event and a cursor older than that gets §13's gap (`historyGap`, a stream's `gap`), as
 * after the 10,000 bound. Answers the events removed.
 */
export function pruneEventsBefore(sql: SqlStorage, before: number, limit: number): number {
  sql.exec(
    `DELETE FROM event WHERE seq <= (SELECT MAX(seq) FROM
       (SELECT seq FROM event WHERE occurred_at < ? ORDER BY occurred_at, seq LIMIT ?))`,
    before,
    limit,
  );
  return sql.exec<{ n: number }>("SELECT changes() AS n").one().n;
}

/** The session's version: its last event's seq (0 before the first). */
export function stateVersion(sql: SqlStorage): number {
  return readRecord(sql)?.stateVersion ?? 0;
}

/** The highest seq no longer kept: everything up to it was pruned (or belonged to a deleted session). */
export function prunedMax(sql: SqlStorage): number {
  const oldest = sql.exec<{ seq: number | null }>("SELECT MIN(seq) AS seq FROM event").one().seq;
  return oldest === null ? stateVersion(sql) : oldest - 1;
}

type EventRow = {
  seq: number;
  kind: EventKind;
  actor_type: EventActor["type"];
  actor_id: string | null;
  run_id: string | null;
  occurred_at: number;
  summary: string;
  data: string | null;
};

function toEvent(row: EventRow): SessionEvent {
  return {
    seq: row.seq,
    kind: row.kind,
    actor: row.actor_id === null ? { type: row.actor_type } : { type: row.actor_type, id: row.actor_id },
    ...(row.run_id !== null ? { runId: row.run_id } : {}),
    occurredAt: row.occurred_at,
    summary: row.summary,
    ...(row.data !== null ? { data: JSON.parse(row.data) as Record<string, unknown> } : {}),
  };
}

/** The kept events after `after`, oldest first, at most `limit`. */
export function eventsAfter(sql: SqlStorage, after: number, limit: number): SessionEvent[] {
  return sql
    .exec<EventRow>("SELECT * FROM event WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
    .toArray()
    .map(toEvent);
}

/** The newest kept events, newest first, at most `limit`. */
export function latestEvents(sql: SqlStorage, limit: number): SessionEvent[] {
  return sql.exec<EventRow>("SELECT * FROM event ORDER BY seq DESC LIMIT ?", limit).toArray().map(toEvent);
}

/** `session_status` `changesSince` (SPEC §13); `since` was checked against the version by the caller. */
export function stateChanges(sql: SqlStorage, since: number): StateChanges {
  const version = stateVersion(sql);
  const pruned = prunedMax(sql);
  const events = eventsAfter(sql, since, MAX_CHANGES);
  const last = events.at(-1)?.seq ?? since;
  return {
    stateVersion: version,
    events,
    truncated: last < version && events.length === MAX_CHANGES,
    earliestAvailableSequence: pruned + 1,
    historyGap: since < pruned,
  };
}

/** A re-created session starts a new log after the old one's last seq: the old events are gone, as a gap. */
export function clearEvents(sql: SqlStorage): void {
  sql.exec("DELETE FROM event");
}
