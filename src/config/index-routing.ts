import { z } from "zod";

/**
 * `index` (SPEC §24): how the session index is spread over its shards. `routeByKey` names the agents
 * whose sessions are routed by the hash of their session key rather than of their agent id ("*": every
 * agent), so one busy agent uses every shard (src/index-db/shards.ts; README "Scaling").
 */
export const indexSettings = z
  .strictObject({
    routeByKey: z.union([z.literal("*"), z.array(z.string().trim().toLowerCase())]).default([]),
  })
  .prefault({});

/** Each agent `index.routeByKey` names is a configured one, named at its place in the list. */
export function checkRouteByKey(
  index: z.output<typeof indexSettings>,
  agentIds: ReadonlySet<string>,
  ctx: z.RefinementCtx,
): void {
  if (index.routeByKey === "*") return;
  for (const [at, id] of index.routeByKey.entries())
    if (!agentIds.has(id))
      ctx.addIssue({ code: "custom", path: ["index", "routeByKey", at], message: `unknown agent "${id}"` });
}
