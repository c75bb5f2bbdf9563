import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { type ToolName, toolNames } from "../config/schema";

type Hints = Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint">>;

const READ: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };

/**
 * What each tool does to the world, for MCP clients that ask before a call with effects (OpenClaw asks
 * for every tool that does not say it only reads). Every tool is named, so a new one must say.
 */
const toolAnnotations: Record<ToolName, Hints> = {
  sessions_list: READ,
  sessions_history: READ,
  sessions_search: READ,
  agents_list: READ,
  // Waits for collector runs and reads their results; it never changes them.
  agents_wait: READ,
  // Sets the session's model when asked to (`model`); the same model again changes nothing more.
  session_status: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  // Each call starts a turn or a run (a repeat is deduplicated only with an idempotencyKey).
  sessions_send: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  sessions_spawn: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  sessions_yield: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  // Records the run's result once; a second call is refused.
  structured_output: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  // kill and cancel stop runs; steer interrupts one.
  subagents: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  // delete removes a session; a patch or delete repeated changes nothing more.
  sessions: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  // remove deletes a job; run starts one now.
  cron: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

/** A listed tool's annotations (every registered tool has them). */
export function annotationsOf(name: string): Hints | undefined {
  return isToolName(name) ? toolAnnotations[name] : undefined;
}

const isToolName = (name: string): name is ToolName => (toolNames as readonly string[]).includes(name);
