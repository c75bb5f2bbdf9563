import { describe, expect, it } from "vitest";
import type { ToolName } from "../../src/config/schema";
import { prepareToolCall } from "../../src/tools/invoke";
import { toolRegistry } from "../../src/tools/registry";
import { toolJsonSchema } from "../../src/tools/specs";
import { AGENT_TOKENS } from "../support";
import { connectMcp } from "../support/mcp";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What a strict function-calling client (`@openai/agents` with strict schemas, OpenAI's `strict: true`)
 * refuses in a tool's parameters: an object that is not closed (`additionalProperties` other than
 * `false`, or none, which JSON Schema reads as open), an object without `properties`, a required name it
 * does not declare, keys only an open object has (`propertyNames`, `patternProperties`). Returns each
 * problem with its path.
 */
function strictProblems(schema: unknown, path = "$"): string[] {
  if (Array.isArray(schema))
    return schema.flatMap((item, index) => strictProblems(item, `${path}[${index}]`));
  if (!isObject(schema)) return [];
  const problems: string[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object") || "properties" in schema || "additionalProperties" in schema) {
    if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
    if (!isObject(schema.properties)) problems.push(`${path}: no properties`);
    const declared = Object.keys(isObject(schema.properties) ? schema.properties : {});
    for (const name of Array.isArray(schema.required) ? schema.required : [])
      if (!declared.includes(name)) problems.push(`${path}: requires undeclared ${name}`);
    for (const open of ["propertyNames", "patternProperties"])
      if (open in schema) problems.push(`${path}: ${open}`);
  }
  for (const key of ["properties", "$defs", "definitions"]) {
    const children = schema[key];
    if (isObject(children))
      for (const [name, child] of Object.entries(children))
        problems.push(...strictProblems(child, `${path}.${key}.${name}`));
  }
  for (const key of ["items", "prefixItems", "anyOf", "oneOf", "allOf", "not"])
    if (key in schema) problems.push(...strictProblems(schema[key], `${path}.${key}`));
  return problems;
}

const tools = Object.keys(toolRegistry) as ToolName[];

describe("every tool's JSON schema suits strict function calling", () => {
  it("the checker finds what a strict client refuses", () => {
    expect(strictProblems({ type: "object", properties: {} })).toEqual([
      "$: additionalProperties is not false",
    ]);
    expect(
      strictProblems({
        type: "object",
        properties: { a: { type: "object", additionalProperties: {}, propertyNames: { type: "string" } } },
        additionalProperties: false,
        required: ["b"],
      }),
    ).toEqual([
      "$: requires undeclared b",
      "$.properties.a: additionalProperties is not false",
      "$.properties.a: no properties",
      "$.properties.a: propertyNames",
    ]);
  });

  it.each(tools)("%s: every object is closed, an empty one included", (name) => {
    const schema = toolJsonSchema(name);
    expect(schema?.type).toBe("object");
    expect(strictProblems(schema)).toEqual([]);
  });

  it("agents_list, which takes nothing, is an empty closed object", () => {
    expect(toolJsonSchema("agents_list")).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
  });

  it("MCP tools/list serves those closed schemas", async () => {
    const client = await connectMcp(AGENT_TOKENS.main);
    for (const tool of (await client.listTools()).tools)
      expect(strictProblems(tool.inputSchema), tool.name).toEqual([]);
  });
});

describe("sessions_spawn outputSchema, published as JSON text for strict clients", () => {
  it("is a string in the JSON schema, whose description says an object is accepted too", () => {
    const properties = toolJsonSchema("sessions_spawn")?.properties as Json;
    expect(properties.outputSchema).toMatchObject({
      type: "string",
      description: expect.stringContaining("object"),
    });
  });

  it("JSON text and an object are the same schema; other text is refused naming the field", () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    for (const outputSchema of [schema, JSON.stringify(schema)]) {
      const prepared = prepareToolCall("sessions_spawn", { task: "t", collect: true, outputSchema });
      expect(prepared).toMatchObject({ ok: true, params: { outputSchema: schema } });
    }
    for (const text of ["{not json", "[1,2]", "7"]) {
      const prepared = prepareToolCall("sessions_spawn", { task: "t", collect: true, outputSchema: text });
      expect(prepared).toMatchObject({ ok: false, message: expect.stringMatching(/^outputSchema: /) });
    }
  });
});
