import { z } from "zod";
import type { ToolName } from "../config/schema";
import type { ToolSpec } from "../runtimes/types";
import { toolRegistry } from "./registry";

// Generated once per isolate: every run hands its tools' schemas to the runtime, and generating them
// showed up in the run's CPU profile (`npm run bench:profile -- sendwait`).
const generated = new Map<ToolName, Record<string, unknown>>();

type JsonSchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is JsonSchemaNode =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** True for a JSON schema node that admits keys it does not name (a record, a loose object). */
const isOpenObject = (node: unknown) =>
  isNode(node) && node.additionalProperties !== undefined && node.additionalProperties !== false;

/**
 * A union that also offers an open object (jsonObjectParam) is published as its closed alternatives
 * only, everywhere in the schema: strict function calling has no way to declare the open one.
 */
function dropOpenAlternatives(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropOpenAlternatives(item);
    return;
  }
  if (!isNode(value)) return;
  for (const child of Object.values(value)) dropOpenAlternatives(child);
  if (!Array.isArray(value.anyOf)) return;
  const closed = value.anyOf.filter((option) => !isOpenObject(option));
  if (closed.length === value.anyOf.length || closed.length === 0) return;
  if (closed.length > 1) value.anyOf = closed;
  else {
    const { anyOf: _, ...rest } = value;
    Reflect.deleteProperty(value, "anyOf");
    Object.assign(value, closed[0], rest);
  }
}

/**
 * A tool's JSON schema, generated from its one zod schema (the input side: what a caller sends). Shared
 * between callers: treat it as read-only.
 */
export function toolJsonSchema(name: ToolName): Record<string, unknown> | undefined {
  const tool = toolRegistry[name];
  if (!tool) return undefined;
  const cached = generated.get(name);
  if (cached) return cached;
  const { $schema: _, ...schema } = z.toJSONSchema(tool.schema, {
    io: "input",
    unrepresentable: "any",
    // Every object closed, as strict function calling requires (`@openai/agents` strict schemas,
    // OpenAI's `strict: true`), an empty one included. The handlers still ignore (or name in an error)
    // keys they do not know: what is published is the strict contract.
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type !== "object") return;
      jsonSchema.properties ??= {};
      jsonSchema.additionalProperties = false;
    },
  });
  dropOpenAlternatives(schema);
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
