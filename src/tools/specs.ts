import { z } from "zod";
import type { ToolName } from "../config/schema";
import type { ToolSpec } from "../runtimes/types";
import { toolRegistry } from "./registry";

// Generated once per isolate: every run hands its tools' schemas to the runtime, and generating them
// showed up in the run's CPU profile (`npm run bench:profile -- sendwait`).
const generated = new Map<ToolName, Record<string, unknown>>();

/**
 * A tool's JSON schema, generated from its one zod schema (the input side: what a caller sends). Shared
 * between callers: treat it as read-only.
 */
export function toolJsonSchema(name: ToolName): Record<string, unknown> | undefined {
  const tool = toolRegistry[name];
  if (!tool) return undefined;
  const cached = generated.get(name);
  if (cached) return cached;
  const { $schema: _, ...schema } = z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" });
  generated.set(name, schema);
  return schema;
}

/** The function tools a run may call, in a stable order. */
export function toolSpecs(names: Iterable<ToolName>): ToolSpec[] {
  return [...names].sort().flatMap((name) => {
    const tool = toolRegistry[name];
    const parameters = toolJsonSchema(name);
    return tool && parameters ? [{ name, description: tool.description, parameters }] : [];
  });
}
