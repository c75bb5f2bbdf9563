import { z } from "zod";
import { countActiveChildren } from "../index-db/lookup";
import { messageTextSchema } from "../transcript/message";
import { requesterSessionId } from "./requester-session";
import { defineTool } from "./types";

const DEFAULT_MESSAGE = "Turn yielded.";

export const sessionsYield = defineTool({
  name: "sessions_yield",
  description:
    "End your current turn cleanly so the next event (typically a sub-agent's completion) starts a fresh turn. The message is kept as hidden context.",
  schema: z.object({ message: messageTextSchema.optional().describe(`default "${DEFAULT_MESSAGE}"`) }),
  async handler(ctx, params) {
    const message = params.message ?? DEFAULT_MESSAGE;
    const runId = ctx.requester.runId;
    if (!runId)
      return {
        status: "error",
        error: "sessions_yield ends a run: call it from inside a run (with its run token).",
      };
    // A yielded sub-agent run reports nothing: only a child's completion would wake it to report. With
    // none running, its requester would never hear back.
    if (
      ctx.requester.depth > 0 &&
      (await countActiveChildren(ctx.shards, ctx.requester.sessionKey, requesterSessionId(ctx))) === 0
    ) {
      return {
        status: "error",
        error:
          "You have no running sub-agents to wait for: finish your task with your answer instead of yielding.",
      };
    }
    const result = await ctx.session(ctx.requester.sessionKey).yieldRun(runId, message);
    if (!result.ok || !result.value.yielded)
      return { status: "error", error: "There is no current run to yield." };
    return { status: "yielded", message };
  },
});
