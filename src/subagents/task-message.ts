/** What starts a sub-agent's first visible message (OpenClaw's), the task after it. */
export const SUBAGENT_TASK_HEADER = "[Subagent Task]";
/**
 * The header of task messages written before the sub-agent rules moved to the system prompt (SPEC §20):
 * rules, a blank line, then the task. Stored transcripts still hold them.
 */
const OLD_TASK_HEADER = "[Sub-agent task]";

/**
 * The first user message of a sub-agent run: the task alone. Its rules and routing context are in the
 * run's system prompt (src/prompt/system-prompt.ts), never in the transcript.
 */
export function subagentTaskMessage(task: string): string {
  return `${SUBAGENT_TASK_HEADER}: ${task}`;
}

/**
 * The task of a sub-agent's task message, of either form: after `[Subagent Task]:`, or after the old
 * form's context, which ends at the first blank line (no context line has one). Any other text is
 * returned as it is.
 */
export function subagentTaskBody(text: string): string {
  const start = text.trimStart();
  if (start.startsWith(SUBAGENT_TASK_HEADER))
    return start.slice(SUBAGENT_TASK_HEADER.length).replace(/^:?\s*/, "");
  if (!start.startsWith(OLD_TASK_HEADER)) return text;
  const end = text.indexOf("\n\n");
  return end < 0 ? "" : text.slice(end + 2);
}
