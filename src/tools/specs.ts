import { z } from "zod";
import type { ToolName } from "../config/schema";
import type { ToolSpec } from "../runtimes/types";
import { toolRegistry } from "./registry";

/** A tool's JSON schema, generated from its one zod schema (the input side: what a caller sends). */
export function toolJsonSchema(name: ToolName): Record<string, unknown> | undefined {
  const tool = toolRegistry[name];
  if (!tool) return undefined;
  const { $schema: _, ...schema } = z.toJSONSchema(tool.schema, { io: "input", unrepresentable: "any" });
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
