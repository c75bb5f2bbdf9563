import type { ToolName } from "../config/schema";
import { agentsList } from "./agents-list";
import { agentsWait } from "./agents-wait";
import { sessionStatus } from "./session-status";
import { sessions } from "./sessions";
import { sessionsHistory } from "./sessions-history";
import { sessionsList } from "./sessions-list";
import { sessionsSearch } from "./sessions-search";
import { sessionsSend } from "./sessions-send";
import { sessionsSpawn } from "./sessions-spawn";
import { sessionsYield } from "./sessions-yield";
import { structuredOutput } from "./structured-output";
import { subagents } from "./subagents";
import type { ToolDefinition } from "./types";

/** Every tool of SPEC §5, by name. */
export const toolRegistry: Partial<Record<ToolName, ToolDefinition>> = {
  sessions_list: sessionsList as unknown as ToolDefinition,
  sessions_history: sessionsHistory as unknown as ToolDefinition,
  sessions_send: sessionsSend as unknown as ToolDefinition,
  sessions_spawn: sessionsSpawn as unknown as ToolDefinition,
  sessions_yield: sessionsYield as unknown as ToolDefinition,
  subagents: subagents as unknown as ToolDefinition,
  session_status: sessionStatus as unknown as ToolDefinition,
  agents_list: agentsList as unknown as ToolDefinition,
  sessions: sessions as unknown as ToolDefinition,
  structured_output: structuredOutput as unknown as ToolDefinition,
  sessions_search: sessionsSearch as unknown as ToolDefinition,
  agents_wait: agentsWait as unknown as ToolDefinition,
};
