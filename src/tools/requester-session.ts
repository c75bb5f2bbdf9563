import { findSessionByKey } from "../index-db/lookup";
import type { ToolContext } from "./types";

/**
 * The id of the requester's session (SPEC §23 "Generations"): a run's requester carries it; one named
 * by an operator or agent token is looked up in the index once, and kept on the requester for the rest
 * of the call. Undefined for a key not indexed (never written): then its children go by key alone.
 */
export async function requesterSessionId(
  ctx: Pick<ToolContext, "requester" | "shards">,
): Promise<string | undefined> {
  if (ctx.requester.sessionId === undefined) {
    const indexed = await findSessionByKey(ctx.shards, ctx.requester.sessionKey);
    if (indexed) ctx.requester.sessionId = indexed.sessionId;
  }
  return ctx.requester.sessionId;
}
