import type { ToolName } from "../config/schema";
import { toolRegistry } from "../tools/registry";
import { toolResultSchemas } from "../tools/results";
import { toolJsonSchema } from "../tools/specs";
import { zodJsonSchema } from "./json-schema";
import type { JsonSchema, ResponseDoc, RouteDoc } from "./types";

/** The registered tools, in registry order: every one of them gets its own operation. */
export function registeredTools(): ToolName[] {
  return (Object.keys(toolRegistry) as ToolName[]).filter((name) => toolRegistry[name]);
}

/** `sessions_list` → `SessionsListArgs`, the component name of a tool's parameters. */
export function toolArgsName(name: string): string {
  return `${name.replace(/(^|_)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Args`;
}

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A value the schema accepts: its own example or default if it has one, else the required fields. */
export function exampleFromSchema(schema: JsonSchema): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("default" in schema) return schema.default;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && isObject(variants[0])) return exampleFromSchema(variants[0]);
  switch (schema.type) {
    case "object": {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(
        required.map((name) => {
          const property = properties[name];
          return [name, isObject(property) ? exampleFromSchema(property) : "string"];
        }),
      );
    }
    case "array":
      return isObject(schema.items) && Number(schema.minItems ?? 0) > 0
        ? [exampleFromSchema(schema.items)]
        : [];
    case "number":
    case "integer":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return false;
    default:
      return "string";
  }
}

const failureExamples = [
  {
    summary: "A policy failure (still 200)",
    value: {
      status: "forbidden",
      error: "Session not visible: tools.sessions.visibility=tree restricts to the current session tree",
    },
  },
  { summary: "A lookup failure (still 200)", value: { status: "error", error: "session not found" } },
];

/** `sessions_list` → `SessionsListResult`, the component name of a tool's result. */
export function toolResultName(name: string): string {
  return toolArgsName(name).replace(/Args$/, "Result");
}

/** A tool's 200: its result schema, an example built from it, and the failures it may answer. */
function toolResponse(name: ToolName): ResponseDoc {
  const schema = toolResultSchemas[name];
  const canFail = failureExamples.map(({ value }) => schema.safeParse(value).success);
  const failures = Object.fromEntries(
    failureExamples.filter((_, index) => canFail[index]).map((example) => [example.value.status, example]),
  );
  return {
    status: 200,
    description: canFail.some(Boolean)
      ? 'The tool\'s result. Policy and lookup failures are results too: `{ status: "forbidden" | "error", error }` (ToolFailure).'
      : "The tool's result.",
    schema,
    name: toolResultName(name),
    examples: {
      result: { summary: "A result", value: exampleFromSchema(zodJsonSchema(schema, "output")) },
      ...failures,
    },
  };
}

/** The generic `POST /v1/tools/{name}` route as one route per registered tool. */
export function perToolRoutes(generic: RouteDoc): RouteDoc[] {
  return registeredTools().flatMap((name) => {
    const tool = toolRegistry[name];
    const jsonSchema = toolJsonSchema(name);
    if (!tool || !jsonSchema) return [];
    const route: RouteDoc = {
      ...generic,
      path: generic.path.replace(":name", name),
      operationId: name,
      summary: name,
      description: `${tool.description}\n\nAlso callable as \`POST /tools/invoke\` with \`{"tool": "${name}", "args": {…}}\` and as MCP \`tools/call\`.`,
      body: {
        name: toolArgsName(name),
        schema: tool.schema,
        jsonSchema,
        example: exampleFromSchema(jsonSchema),
      },
      responses: [toolResponse(name)],
    };
    return [route];
  });
}
