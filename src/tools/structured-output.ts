import { z } from "zod";
import { jsonBytes } from "../history/byte-cap";
import type { ToolSpec } from "../runtimes/types";
import { structuredOutputDescription } from "../subagents/structured-result";
import { MAX_MESSAGE_TEXT_BYTES, MAX_TOOL_ARGUMENTS_DEPTH } from "../transcript/message";
import { nestsDeeperThan } from "../validation";
import { defineTool } from "./types";

/**
 * The result is stored with the run and travels in its completion: bounded like a message's text, and
 * one level less deep than a tool call's arguments, which hold it.
 */
const resultParam = z.unknown().superRefine((value, ctx) => {
  if (value === undefined) return;
  if (nestsDeeperThan(value, MAX_TOOL_ARGUMENTS_DEPTH - 1)) {
    ctx.addIssue({ code: "custom", message: `nested deeper than ${MAX_TOOL_ARGUMENTS_DEPTH - 1} levels` });
    return;
  }
  const bytes = jsonBytes(value);
  if (bytes > MAX_MESSAGE_TEXT_BYTES)
    ctx.addIssue({ code: "custom", message: `larger than ${MAX_MESSAGE_TEXT_BYTES} bytes as JSON` });
});

export const structuredOutput = defineTool({
  name: "structured_output",
  // A run is offered the description with its own schema (withOutputSchema); this one is for listings
  // that have no run to take it from.
  description:
    'Call exactly once as {"result": ...}, where result matches the JSON Schema your spawn gave (the outputSchema). Only a collector sub-agent spawned with an outputSchema has this tool.',
  schema: z.object({ result: resultParam.describe("your final result, matching the outputSchema") }),
  async handler(ctx, params) {
    const runId = ctx.requester.runId;
    if (!runId)
      return {
        status: "error",
        error: "structured_output records a run's result: call it from inside the run (with its run token).",
      };
    const answer = await ctx.session(ctx.requester.sessionKey).recordStructuredOutput(runId, params.result);
    if (!answer.ok)
      return { status: answer.code === "forbidden" ? "forbidden" : "error", error: answer.message };
    return answer.value;
  },
});

/** A run's tools as its runtime is offered them: structured_output described with the run's own schema. */
export function withOutputSchema(specs: ToolSpec[], schema: Record<string, unknown> | undefined): ToolSpec[] {
  if (!schema) return specs;
  return specs.map((spec) =>
    spec.name === structuredOutput.name
      ? { ...spec, description: structuredOutputDescription(schema) }
      : spec,
  );
}
