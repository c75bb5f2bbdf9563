import { z } from "zod";
import { findAgent, subagentSettings } from "../config/agents";
import { defineTool } from "./types";

export const agentsList = defineTool({
  name: "agents_list",
  description:
    "List the agent ids you may use as agentId for sessions_spawn: your own and those allowed to you.",
  schema: z.object({}),
  async handler(ctx) {
    const own = ctx.requester.agentId;
    const allowed = subagentSettings(ctx.config, own).allowAgents.map((id) => id.trim().toLowerCase());
    const allowAny = allowed.includes("*");
    const ids = ctx.config.agents.list
      .map((agent) => agent.id)
      .filter((id) => id === own || allowAny || allowed.includes(id));
    return {
      requester: own,
      allowAny,
      agents: ids.map((id) => {
        const agent = findAgent(ctx.config, id);
        return { id, ...(agent?.name ? { label: agent.name } : {}), sandboxed: agent?.sandbox ?? false };
      }),
    };
  },
});
