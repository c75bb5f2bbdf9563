import { maintenancePolicy } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { parseSessionKey } from "../../keys";
import type { SessionRecord } from "../record/record";
import { type PruneCounts, pruneSessionTables } from "../store/retention";
import { trimTranscript } from "../transcript/trim";

/**
 * The object's own retention pass (SPEC §23), one bounded batch per table: at each run's start and on
 * the alarm. Its tables' bounds are always kept (they are ours); `maxMessages` trims the transcript only
 * where the agent's policy says `enforce` (`warn` changes nothing).
 */
export function retainSession(
  sql: SqlStorage,
  config: SwitchboardConfig,
  record: SessionRecord,
  now: number,
): PruneCounts & { trimmedMessages: number } {
  const kind = parseSessionKey(record.sessionKey, keyOptionsOf(config))?.kind ?? "other";
  const policy = maintenancePolicy(config, record.agentId, kind);
  const counts = pruneSessionTables(sql, policy.runRetentionMs, now);
  const trimmedMessages =
    policy.maxMessages !== undefined && policy.mode === "enforce"
      ? trimTranscript(sql, policy.maxMessages, now)
      : 0;
  return { ...counts, trimmedMessages };
}
