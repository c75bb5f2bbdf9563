/** The first user message of a sub-agent run: a short sub-agent context, then the task (SPEC §5.4). */
export function subagentTaskMessage(
  task: string,
  spawn: { depth: number; maxDepth: number; requesterKey: string; collect?: boolean },
): string {
  const role = spawn.depth < spawn.maxDepth ? "orchestrator (you may spawn sub-agents of your own)" : "leaf";
  return [
    `[Sub-agent task] You are a sub-agent at depth ${spawn.depth} of ${spawn.maxDepth}, role ${role}, spawned by ${spawn.requesterKey}.`,
    spawn.collect
      ? "You are a collector: when you finish, your final answer is kept for the requester, who collects it. Do not message the requester."
      : "When you finish, your final answer is announced to the requester automatically: do not poll for it, and do not message the requester.",
    "",
    task,
  ].join("\n");
}
