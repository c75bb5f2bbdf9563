import { findAgent } from "../../config/agents";
import type { SwitchboardConfig } from "../../config/schema";
import type { CompactionAnswer, Result } from "../api";
import { notFound } from "../api";
import { liveRecord } from "../record/record";
import { readCompaction } from "../store/compaction-store";
import { messagesNewestFirst } from "../transcript/run-history";
import { compactHistory, openTriggerSeq } from "./compaction";
import { historyTokens, promptBudget, readNewest } from "./context-budget";
import { effectiveAgent } from "./model-chain";
import { KEEP_SHARE } from "./prompt-history";

/** How long an on-demand compaction waits for the model (the request waits with it). */
const COMPACT_TIMEOUT_MS = 120_000;

/**
 * The operator's compaction (SPEC §20 `POST /v1/sessions/{key}/compact`): it compacts even a session
 * that fits, keeping verbatim the newest turns within the automatic share of the budget but never more
 * than half of what is uncompacted, so some older turn is always summarized when there are two. The
 * budget is the model's window less its output allowance (no run's system prompt is at hand here).
 */
export async function compactNow(
  env: Env,
  storage: DurableObjectStorage,
  config: SwitchboardConfig,
): Promise<Result<CompactionAnswer>> {
  const sql = storage.sql;
  const record = liveRecord(sql);
  if (!record) return notFound();
  const configured = findAgent(config, record.agentId);
  if (!configured)
    return { ok: false, code: "conflict", message: `agent "${record.agentId}" is not configured` };
  const agent = effectiveAgent(configured, record);
  const budget = promptBudget(agent, "", []);
  const rows = readNewest(messagesNewestFirst(sql, readCompaction(sql)?.throughSeq ?? 0), 2 * budget, budget);
  const outcome = await compactHistory(
    {
      env,
      sql,
      transact: (write) => storage.transactionSync(write),
      record,
      agent,
      signal: AbortSignal.timeout(COMPACT_TIMEOUT_MS),
    },
    rows,
    {
      keepTokens: Math.min(KEEP_SHARE * budget, historyTokens(rows, budget) / 2),
      protectFromSeq: openTriggerSeq(sql),
    },
  );
  const compactionCount = liveRecord(sql)?.compactionCount ?? 0;
  if (!outcome.compacted)
    return { ok: true, value: { compacted: false, reason: outcome.reason, compactionCount } };
  return {
    ok: true,
    value: {
      compacted: true,
      operationId: outcome.summary.operationId,
      summarizedMessages: outcome.summarizedMessages,
      keptMessages: outcome.keptMessages,
      compactionCount,
    },
  };
}
