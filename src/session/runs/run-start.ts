import { subagentSettings } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { parseSessionKey } from "../../keys";
import type { RunSessionInfo, RunStart } from "../../prompt/system-prompt";
import type { TranscriptMessage } from "../../transcript/message";
import type { SessionRecord } from "../record/record";
import { sessionRowOf } from "../record/row";
import type { RunRow } from "../store/run-store";

/** The session as a run's context names it: its full key, kind, channel, chat type and label. */
export function runSessionInfo(config: SwitchboardConfig, record: SessionRecord): RunSessionInfo {
  const row = sessionRowOf(record, config);
  const chatType = record.chatType ?? parseSessionKey(record.sessionKey, keyOptionsOf(config))?.chatType;
  return {
    key: record.sessionKey,
    kind: row.kind,
    channel: row.channel,
    ...(chatType ? { chatType } : {}),
    ...(record.label ? { label: record.label } : {}),
  };
}

/**
 * What started a run, from what the session holds: a sub-agent's task (its trigger's provenance, with the
 * spawn kept on the child's record), a turn queued with context (sessions_send and its reply steps, a
 * completion), else a message.
 */
export function runStartOf(
  config: SwitchboardConfig,
  record: SessionRecord,
  run: Pick<RunRow, "context" | "replyTo" | "webhook">,
  trigger: TranscriptMessage,
): RunStart {
  const provenance = trigger.provenance?.kind;
  // A hook's POST (SPEC §22): its name on the provenance, its delivery on the run.
  if (provenance === "system" && trigger.provenance?.sourceTool === "hook") {
    const deliverTo = run.replyTo
      ? `the chat ${run.replyTo.to} on ${run.replyTo.channel}`
      : run.webhook
        ? "a webhook of the operator's"
        : undefined;
    return { kind: "hook", name: String(trigger.provenance.hook ?? ""), ...(deliverTo ? { deliverTo } : {}) };
  }
  if (provenance === "subagent_task" && record.spawn) {
    const { collect } = record.spawn;
    return {
      kind: "subagent",
      depth: record.spawnDepth,
      maxDepth: subagentSettings(config, record.agentId).maxSpawnDepth,
      requesterKey: record.spawn.requesterKey,
      ...(collect ? { collect: collect.outputSchema ? { outputSchema: collect.outputSchema } : {} } : {}),
    };
  }
  const job = trigger.provenance?.job;
  if (provenance === "system" && trigger.provenance?.sourceTool === "cron" && job)
    return { kind: "schedule", name: job.name, ...(job.deliverTo ? { deliverTo: job.deliverTo } : {}) };
  if (run.context)
    return provenance === "subagent_completion"
      ? { kind: "completion", context: run.context }
      : { kind: "inter-session", context: run.context };
  return { kind: "message" };
}
