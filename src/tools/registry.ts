import type { ToolName } from "../config/schema";
import { agentsList } from "./agents-list";
import { sessionStatus } from "./session-status";
import { sessionsHistory } from "./sessions-history";
import { sessionsList } from "./sessions-list";
import { sessionsSend } from "./sessions-send";
import type { ToolDefinition } from "./types";

/** The tools this build serves; the rest of SPEC §5 arrives with later issues. */
export const toolRegistry: Partial<Record<ToolName, ToolDefinition>> = {
  sessions_list: sessionsList as unknown as ToolDefinition,
  sessions_history: sessionsHistory as unknown as ToolDefinition,
  sessions_send: sessionsSend as unknown as ToolDefinition,
  session_status: sessionStatus as unknown as ToolDefinition,
  agents_list: agentsList as unknown as ToolDefinition,
};
