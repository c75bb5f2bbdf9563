/** What the task message says a collector child (SPEC §15) must do with its result. */
const COLLECTOR_LINE =
  "You are a collector: your result is kept for the requester, who collects it: do not message the requester.";
const STRUCTURED_LINE =
  'Before your final answer, call the structured_output tool exactly once as {"result": ...}, with your result matching the JSON Schema in its description. If it reports a validation failure, retry once with a corrected result; there is no third try.';

const TASK_HEADER = "[Sub-agent task]";

/** The first user message of a sub-agent run: a short sub-agent context, then the task (SPEC §5.4). */
export function subagentTaskMessage(
  task: string,
  spawn: {
    depth: number;
    maxDepth: number;
    requesterKey: string;
    /** A collector child's settings (SPEC §15): with an outputSchema, it must call structured_output. */
    collect?: { outputSchema?: Record<string, unknown> };
  },
): string {
  const role = spawn.depth < spawn.maxDepth ? "orchestrator (you may spawn sub-agents of your own)" : "leaf";
  return [
    `${TASK_HEADER} You are a sub-agent at depth ${spawn.depth} of ${spawn.maxDepth}, role ${role}, spawned by ${spawn.requesterKey}.`,
    spawn.collect
      ? COLLECTOR_LINE
      : "When you finish, your final answer is announced to the requester automatically: do not poll for it, and do not message the requester.",
    ...(spawn.collect?.outputSchema ? [STRUCTURED_LINE] : []),
    "",
    task,
  ].join("\n");
}

/**
 * The task of a message `subagentTaskMessage` wrote: the text after its context, which ends at the first
 * blank line (no context line has one). Any other text is returned as it is.
 */
export function subagentTaskBody(text: string): string {
  if (!text.trimStart().startsWith(TASK_HEADER)) return text;
  const end = text.indexOf("\n\n");
  return end < 0 ? "" : text.slice(end + 2);
}
