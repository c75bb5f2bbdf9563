import type { AgentConfig } from "../config/schema";
import { ANNOUNCE_SKIP } from "../messaging/inter-session";
import { SUBAGENT_TASK_HEADER } from "../subagents/task-message";

/** The session a run acts in, as the run context names it (SPEC §20). */
export interface RunSessionInfo {
  /** The full `agent:<id>:<rest>` key. */
  key: string;
  kind: string;
  channel: string;
  chatType?: string;
  label?: string;
}

/** A collector child's settings (SPEC §15): with an output schema it must call `structured_output`. */
export interface CollectorInfo {
  outputSchema?: Record<string, unknown>;
}

/**
 * What started the run, each with the context Switchboard adds for it. `queued` turns carry the words
 * they were queued with (the agent-to-agent context of §5.3 from sessions_send and its reply steps, a
 * sub-agent completion's); `schedule` and `hook` are §22's, for issue 32.
 */
export type RunStart =
  | { kind: "message" }
  | { kind: "inter-session"; context: string }
  | { kind: "completion"; context: string }
  | {
      kind: "subagent";
      depth: number;
      maxDepth: number;
      requesterKey: string;
      collect?: CollectorInfo;
    }
  | { kind: "schedule" | "hook"; name: string; deliverTo?: string };

/** What a run's system prompt is built from. */
export interface SystemPromptInput {
  agent: Pick<AgentConfig, "instructions" | "timezone">;
  session: RunSessionInfo;
  /** The run's start (ms since the epoch). */
  now: number;
  started: RunStart;
}

export const RUN_CONTEXT_HEADER = "## Run context (written by Switchboard)";

/** `2026-11-27 17:59 (Friday)` in a zone: what the model reads as the local time. */
function localTime(now: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    weekday: "long",
  }).formatToParts(new Date(now));
  const part = (type: string) => parts.find((item) => item.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")} (${part("weekday")})`;
}

function sessionLines(session: RunSessionInfo): string[] {
  const facts = [`kind ${session.kind}`, `channel ${session.channel}`];
  if (session.chatType) facts.push(`chat type ${session.chatType}`);
  if (session.label) facts.push(`label ${JSON.stringify(session.label)}`);
  return [`Session: ${session.key} (${facts.join(", ")})`];
}

function timeLines(now: number, timeZone: string | undefined): string[] {
  const utc = `${new Date(now).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return [`Current time: ${utc}${timeZone ? `; ${localTime(now, timeZone)} ${timeZone}` : ""}`];
}

/** OpenClaw's sub-agent runtime rules and routing context: never the task, which is its own message. */
function subagentLines(started: Extract<RunStart, { kind: "subagent" }>): string[] {
  const role =
    started.depth < started.maxDepth ? "orchestrator (you may spawn sub-agents of your own)" : "leaf";
  const lines = [
    "### Sub-agent",
    `You are a sub-agent at depth ${started.depth} of at most ${started.maxDepth}, role ${role}.`,
    `Your requester is ${started.requesterKey}. Your task is the first ${SUBAGENT_TASK_HEADER} message.`,
  ];
  if (started.collect) {
    lines.push(
      "### Collector",
      "You are a collector: your result is kept for the requester, who collects it. Do not message the requester.",
    );
    if (started.collect.outputSchema)
      lines.push(
        'Before your final answer, call the structured_output tool exactly once as {"result": ...}, with your result matching this JSON Schema. If it reports a validation failure, retry once with a corrected result; there is no third try.',
        "```json",
        JSON.stringify(started.collect.outputSchema),
        "```",
      );
    return lines;
  }
  lines.push(
    "Your final answer goes to your requester as your result, never to the end user: it is announced to the requester automatically, so do not poll for it and do not message the requester.",
    `Reply exactly ${ANNOUNCE_SKIP} if there is nothing to report.`,
  );
  return lines;
}

function startLines(started: RunStart): string[] {
  switch (started.kind) {
    case "message":
      return [];
    case "inter-session":
      return ["### Inter-session message", started.context];
    case "completion":
      return ["### Sub-agent completion", started.context];
    case "subagent":
      return subagentLines(started);
    case "schedule":
    case "hook": {
      const what =
        started.kind === "schedule" ? `the scheduled job "${started.name}"` : `the hook "${started.name}"`;
      return [
        `### ${started.kind === "schedule" ? "Scheduled job" : "Hook"}`,
        `This run was started by ${what}, not by a person writing to you.`,
        started.deliverTo
          ? `Your final answer is delivered to ${started.deliverTo}.`
          : "Your final answer is kept in this session and delivered nowhere.",
      ];
    }
  }
}

/**
 * A run's system prompt (SPEC §20): the agent's instructions first, with nothing before them, then the
 * run context block Switchboard writes (the session, the time, and what started the run).
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const context = [
    RUN_CONTEXT_HEADER,
    ...sessionLines(input.session),
    ...timeLines(input.now, input.agent.timezone),
    ...startLines(input.started),
  ].join("\n");
  const instructions = input.agent.instructions?.trim() ? input.agent.instructions : undefined;
  return instructions ? `${instructions}\n\n${context}` : context;
}
