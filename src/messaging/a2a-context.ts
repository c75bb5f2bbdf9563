export interface ExchangeParty {
  agentId: string;
  sessionKey: string;
  channel: string;
}

/** The agent-to-agent context the target's run receives (SPEC §5.3): who is who, and where they talk. */
export function agentToAgentContext(requester: ExchangeParty, target: ExchangeParty): string {
  return [
    "Agent-to-agent message.",
    `Agent 1 (requester): agent ${requester.agentId}, session ${requester.sessionKey}, channel ${requester.channel}.`,
    `Agent 2 (you, the target): agent ${target.agentId}, session ${target.sessionKey}, channel ${target.channel}.`,
    "The message below comes from Agent 1. Your reply goes back to Agent 1.",
  ].join("\n");
}
