import { messageTokens } from "../../history/token-estimate";
import type { ToolSpec } from "../../runtimes/types";
import type { TranscriptMessage } from "../../transcript/message";
import { readCompaction } from "../store/compaction-store";
import { queuedRuns } from "../store/run-store";
import { runHistory, type SeqMessage } from "../transcript/run-history";
import { type CompactionContext, compactHistory, openTriggerSeq, summaryMessage } from "./compaction";
import {
  COMPACT_AT_SHARE,
  fittedMessage,
  historyTokens,
  promptBudget,
  readNewest,
  selectHistory,
} from "./context-budget";

/** An automatic compaction keeps the newest turns that fit this share of the budget verbatim. */
export const KEEP_SHARE = 0.25;

/** The compacting that one history read serves: twice the budget covers the kept turns and a full summary call. */
const READ_BUDGETS = 2;

/** What a run's prompt is made of, besides its history. */
export interface PromptParts {
  run: { runId: string; triggerMessageId: string };
  trigger: TranscriptMessage;
  system: string;
  tools: readonly ToolSpec[];
}

/**
 * A run's message and history, fitted to its model's window (SPEC §20): the trigger (its safe view if
 * too large for any prompt), then the summary of a compacted session, then the newest uncompacted
 * messages the budget holds. A run whose uncompacted history fills more than 80% of the budget compacts
 * the session first; a compaction that fails changes nothing and the run goes on with what fits.
 */
export async function promptHistory(
  context: CompactionContext,
  parts: PromptParts,
): Promise<{ message: TranscriptMessage; history: TranscriptMessage[] }> {
  const { sql, agent } = context;
  const budget = promptBudget(agent, parts.system, parts.tools);
  const message = fittedMessage(parts.trigger, budget);
  const forHistory = Math.max(0, budget - messageTokens(message));
  const queuedTriggers = queuedRuns(sql).flatMap((queued) =>
    queued.triggerMessageId ? [queued.triggerMessageId] : [],
  );
  let summary = readCompaction(sql);
  const head = () => (summary ? [summaryMessage(summary, forHistory)] : []);
  const left = () => Math.max(0, forHistory - head().reduce((sum, each) => sum + messageTokens(each), 0));
  let rows: SeqMessage[] = readNewest(
    runHistory(sql, parts.run, queuedTriggers, summary?.throughSeq ?? 0),
    READ_BUDGETS * forHistory,
    forHistory,
  );
  if (historyTokens(rows, forHistory) > COMPACT_AT_SHARE * left()) {
    const compacted = await compactHistory(context, rows, {
      keepTokens: KEEP_SHARE * forHistory,
      protectFromSeq: openTriggerSeq(sql),
      runId: parts.run.runId,
    });
    if (compacted.compacted) {
      summary = compacted.summary;
      const through = summary.throughSeq;
      rows = rows.filter((row) => row.seq > through);
    } else console.warn(`run ${parts.run.runId}: compaction skipped: ${compacted.reason}`);
  }
  return { message, history: [...head(), ...selectHistory(rows, left())] };
}
