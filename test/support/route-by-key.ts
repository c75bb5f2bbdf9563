import { toolWithConfig, workerConfigWith } from ".";
import { shardOf, shards } from "./shards";

// test-config.ts routes agent `public` by session key (index.routeByKey); its agent id hashes to shard 2,
// where its sub-agents stay (shards.ts), while its other sessions spread over all three.
export const PUBLIC_HOME = 2;

/** The shard number a session's index rows live in. */
export const shardIndex = (key: string) => shards().indexOf(shardOf(key));

/** Visibility `agent`: a requester's list and search name its agent (scope `agents`), so they fan out. */
export const agentWide = workerConfigWith((config) => {
  config.tools.sessions.visibility = "agent";
});

/** Visibility `all`, agent-to-agent open: the operator's fan-out from an agent's token. */
export const everyone = workerConfigWith((config) => {
  config.tools.sessions.visibility = "all";
  config.tools.agentToAgent.allow = ["*"];
});

/** A key of agent public, `<prefix>-<n>`, whose rows live in `shard`. */
export function keyIn(shard: number, prefix: string): string {
  for (let n = 0; ; n++)
    if (shardIndex(`agent:public:${prefix}-${n}`) === shard) return `agent:public:${prefix}-${n}`;
}

/** Every page of a sessions_list, by its cursor: the keys in order. */
export async function allPages(config: typeof everyone, requester: string, args: Record<string, unknown>) {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await toolWithConfig(config, "sessions_list", requester, {
      ...args,
      ...(cursor ? { cursor } : {}),
    });
    seen.push(...page.sessions.map((row) => row.key));
    cursor = page.nextCursor;
  } while (cursor);
  return seen;
}
