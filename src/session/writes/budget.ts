import { type Budget, hasDailyCap } from "../../agent-object/budget";
import { utcDay } from "../../agent-object/spend";
import type { SwitchboardConfig } from "../../config/schema";
import type { SessionRecord } from "../record/record";
import { chatToldSince } from "../store/budget-events";
import { appendEvent, systemEvent } from "../store/event-log";
import { addToOutbox } from "../store/outbox-store";
import type { RunEnding, RunRow } from "../store/run-store";
import { addPostIfAllowed } from "./posts";

/** Why a run was not started (SPEC §20 budgets): a daily cap reached, or the session's run rate. */
export interface BudgetRefusal {
  cause: "daily" | "rate";
  /** The one line the run's error, the event and any notice say. */
  line: string;
}

/** A chat is told of a daily-cap refusal once per UTC day, of a rate refusal once per minute. */
function noticeWindowStart(cause: BudgetRefusal["cause"], now: number): number {
  return cause === "daily" ? Date.parse(`${utcDay(now)}T00:00:00Z`) : now - 60_000;
}

/**
 * Records a refusal (call inside the transaction that ends the run): the `budget` event, and the chat's
 * one-line notice when the run came from a chat that was not told yet in this window. A requester that
 * is a session (a send, a spawn) reads the run's error instead.
 */
export function recordBudgetRefusal(
  sql: SqlStorage,
  config: SwitchboardConfig,
  record: SessionRecord,
  run: RunRow,
  refusal: BudgetRefusal,
  now: number,
): void {
  const target = run.replyTo;
  const chatTold =
    target !== undefined &&
    !chatToldSince(sql, refusal.cause, noticeWindowStart(refusal.cause, now)) &&
    addPostIfAllowed(sql, config, record, {
      runId: run.runId,
      purpose: "budget",
      text: refusal.line,
      target,
    });
  appendEvent(
    sql,
    systemEvent("budget", refusal.line, {
      runId: run.runId,
      data: { cause: refusal.cause, agentId: record.agentId, chatTold },
    }),
    now,
  );
}

/**
 * Owes the agent object a run's usage (call inside the run end's transaction), for an agent with a daily
 * cap: counted on the UTC day the run ended. The outbox delivers it until acknowledged; the agent
 * object counts a runId once.
 */
export function addUsageReport(
  sql: SqlStorage,
  agentId: string,
  budget: Budget | undefined,
  runId: string,
  ending: RunEnding,
  now: number,
): void {
  if (!hasDailyCap(budget) || !ending.usage) return;
  addToOutbox(sql, "agent_usage", `usage:${runId}`, {
    agentId,
    runId,
    day: utcDay(now),
    tokens: ending.usage.total,
    costUsd: ending.usage.estimatedCostUsd ?? 0,
  });
}
