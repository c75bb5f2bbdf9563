import type { ToolName } from "../config/schema";
import { agentsList } from "./agents-list";
import { agentsWait } from "./agents-wait";
import { cron } from "./cron";
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
import type { AnyTool } from "./types";

/** Every tool of SPEC §5, by name. */
export const toolRegistry: Partial<Record<ToolName, AnyTool>> = {
  sessions_list: sessionsList,
  sessions_history: sessionsHistory,
  sessions_send: sessionsSend,
  sessions_spawn: sessionsSpawn,
  sessions_yield: sessionsYield,
  subagents: subagents,
  session_status: sessionStatus,
  agents_list: agentsList,
  sessions: sessions,
  structured_output: structuredOutput,
  sessions_search: sessionsSearch,
  agents_wait: agentsWait,
  cron,
};
