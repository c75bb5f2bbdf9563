import type { SwitchboardConfig } from "../../config/schema";
import type { Provenance } from "../../transcript/message";
import type { InboundAnswer, InboundChannelMessage, ReplyTarget } from "../api";
import { chatOf, type SessionRecord, updateRecord } from "../record/record";
import { addIndexSync } from "../store/outbox-store";
import { deferRunStart, queuedRuns, type RunRow } from "../store/run-store";
import { appendMessages, readMessage, summaryChanges } from "../transcript/transcript";
import { writeSteering } from "./steering";
import { answerSuperseded } from "./superseded";
import { writeTurn } from "./writes";

// Busy sessions (SPEC §21, the channel's `busy`): what an inbound message that would start a turn does
// while the session is busy, decided here in acceptInbound's one transaction on the record it sees.

/** An inbound message's write: its answer, and for `interrupt`, the run whose start stops the others. */
export type InboundWrite = InboundAnswer & { interrupt?: string };

/** An inbound message that asks for a turn, as the inbound write has it. */
export interface InboundTurn {
  messageId: string;
  text: string;
  provenance: Provenance;
  replyTo: ReplyTarget;
  runId: string;
}

/** Message ids of inbound channel messages (writes/inbound.ts): a channel run's dedupe key is one. */
const isChannelRun = (run: RunRow) => run.dedupeKey?.startsWith("channel:") === true;

/**
 * Writes an inbound message's turn as its channel's busy mode says. `queue` (or none): a run of its own,
 * answered in turn. `steer`: into the active run, or queued when none runs. `interrupt`: queued, and the
 * caller stops every other channel run (their partial replies are never posted), so this one run answers
 * all of them: their messages are its history (each stopped run's ending owes its Discord interaction
 * the note, writes/run-ending.ts). `collect`: one run for every message that comes within
 * `debounceMs` of the one before, started that long after the latest (the run's `not_before`, which the
 * alarm keeps), its trigger the latest message and the others its history.
 */
export function writeBusyTurn(
  sql: SqlStorage,
  record: SessionRecord,
  config: SwitchboardConfig,
  busy: InboundChannelMessage["busy"],
  turn: InboundTurn,
  now: number,
): InboundWrite {
  const mode = busy?.mode ?? "queue";
  if (mode === "steer" || mode === "collect") {
    // A redelivery of a message steered or collected before: it joined a run whose id it carries.
    const seen = readMessage(sql, turn.messageId);
    if (seen?.runId) return { status: "accepted", runId: seen.runId, duplicate: true };
  }
  if (mode === "steer") {
    const steer = { id: turn.messageId, text: turn.text, provenance: turn.provenance };
    const active = writeSteering(sql, record, config, steer, now);
    if (active) {
      answerSuperseded(sql, record, config, { replyTo: turn.replyTo, runId: active, note: "earlier" }, now);
      return { status: "accepted", runId: active, duplicate: false };
    }
  }
  if (mode === "collect") {
    const collecting = queuedRuns(sql).at(-1);
    const startAt = now + (busy?.debounceMs ?? 0);
    if (
      collecting &&
      isChannelRun(collecting) &&
      collecting.startedAt === undefined &&
      collecting.notBefore
    ) {
      const superseded = { replyTo: collecting.replyTo, runId: collecting.runId, note: "later" } as const;
      answerSuperseded(sql, record, config, superseded, now);
      joinCollectingRun(sql, record, collecting.runId, turn, startAt, now);
      return { status: "accepted", runId: collecting.runId, duplicate: false };
    }
    writeChannelTurn(sql, record, config, turn, now);
    deferRunStart(sql, turn.runId, startAt);
    return { status: "accepted", runId: turn.runId, duplicate: false };
  }
  writeChannelTurn(sql, record, config, turn, now);
  return {
    status: "accepted",
    runId: turn.runId,
    duplicate: false,
    ...(mode === "interrupt" ? { interrupt: turn.runId } : {}),
  };
}

function writeChannelTurn(
  sql: SqlStorage,
  record: SessionRecord,
  config: SwitchboardConfig,
  turn: InboundTurn,
  now: number,
): void {
  const message = { id: turn.messageId, text: turn.text, provenance: turn.provenance };
  writeTurn(
    sql,
    record,
    config,
    { runId: turn.runId, dedupeKey: turn.messageId, message, replyTo: turn.replyTo },
    now,
  );
}

/**
 * A message collected into the run still waiting for its debounce: it becomes the run's trigger (the
 * messages before it are the run's history), the reply answers it, and the run's start moves to `startAt`.
 */
function joinCollectingRun(
  sql: SqlStorage,
  record: SessionRecord,
  runId: string,
  turn: InboundTurn,
  startAt: number,
  now: number,
): void {
  const appended = appendMessages(
    sql,
    [
      {
        id: turn.messageId,
        role: "user",
        content: turn.text,
        provenance: turn.provenance,
        timestamp: now,
        runId,
      },
    ],
    record.firstUserText !== undefined,
  );
  sql.exec(
    "UPDATE run SET trigger_message_id = ?, reply_to = ?, not_before = ? WHERE run_id = ?",
    turn.messageId,
    JSON.stringify(turn.replyTo),
    startAt,
    runId,
  );
  updateRecord(sql, {
    updatedAt: Math.max(record.updatedAt, now),
    lastChannel: turn.replyTo.channel,
    lastTo: turn.replyTo.to,
    deliveryContext: chatOf(turn.replyTo),
    ...summaryChanges(appended),
  });
  addIndexSync(sql);
}
