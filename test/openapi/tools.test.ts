import { describe, expect, it } from "vitest";
import type { ToolName } from "../../src/config/schema";
import { buildOpenApiDocument } from "../../src/openapi/document";
import { toolArgsName } from "../../src/openapi/tool-operations";
import { prepareToolCall } from "../../src/tools/invoke";
import { toolRegistry } from "../../src/tools/registry";
import { toolJsonSchema } from "../../src/tools/specs";
import { at } from "./check-openapi";

const doc = buildOpenApiDocument();
const tools = Object.keys(toolRegistry) as ToolName[];

describe("tool operations", () => {
  it("come from the registry: one POST /v1/tools/{name} per registered tool, and no others", () => {
    expect(tools.length).toBeGreaterThan(0);
    const documented = Object.keys(doc.paths)
      .filter((path) => path.startsWith("/v1/tools/"))
      .map((path) => path.slice("/v1/tools/".length));
    expect(documented).toEqual(tools);
  });

  it.each(tools)("%s has its operation with the schema generated from its zod schema", (name) => {
    const operation = doc.paths[`/v1/tools/${name}`]?.post;
    if (!operation) throw new Error(`no POST /v1/tools/${name} in the document`);
    expect(operation).toMatchObject({
      operationId: name,
      summary: name,
      tags: ["Tools"],
      security: [{ bearerAuth: [] }],
      description: expect.stringContaining(toolRegistry[name]?.description ?? "?"),
    });
    const body = at(operation.requestBody, "content", "application/json");
    expect(at(body, "schema")).toEqual({ $ref: `#/components/schemas/${toolArgsName(name)}` });
    expect(doc.components.schemas[toolArgsName(name)]).toEqual(toolJsonSchema(name));
    expect(operation.requestBody?.required).toBe((toolJsonSchema(name)?.required as unknown[])?.length > 0);
    // The generated example passes the tool's own validation, as a call would.
    expect(prepareToolCall(name, at(body, "example"))).toMatchObject({ ok: true });
    for (const status of ["200", "400", "401", "403", "404", "413", "500"])
      expect(operation.responses).toHaveProperty(status);
  });
});
