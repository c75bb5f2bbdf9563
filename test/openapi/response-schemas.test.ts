import { describe, expect, it } from "vitest";
import type { ToolName } from "../../src/config/schema";
import { buildOpenApiDocument } from "../../src/openapi/document";
import { toolResultName } from "../../src/openapi/tool-operations";
import type { JsonSchema } from "../../src/openapi/types";
import { toolRegistry } from "../../src/tools/registry";
import { toolResultSchemas } from "../../src/tools/results";
import { at } from "./check-openapi";
import { resolved, schemaErrors, sseFrames } from "./schema-check";

const doc = buildOpenApiDocument();

/** Every documented response: where, its status and each media type it answers with. */
const answers = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).flatMap(([method, operation]) =>
    Object.entries(operation.responses).flatMap(([status, response]) =>
      Object.entries((at(response, "content") ?? {}) as Record<string, JsonSchema>).map(([type, media]) => ({
        where: `${method.toUpperCase()} ${path} ${status} ${type}`,
        status,
        type,
        media,
      })),
    ),
  ),
);
const successes = answers.filter(({ status }) => status.startsWith("2"));

/** True for an object schema that says nothing of its fields (`{}`, `{ type: "object" }`). */
function isFreeForm(schema: JsonSchema): boolean {
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return variants.some((variant) => isFreeForm(resolved(doc, variant)));
  if (schema.type !== undefined && schema.type !== "object") return false;
  const properties = at(schema, "properties");
  return typeof properties !== "object" || properties === null || Object.keys(properties).length === 0;
}

describe("the documented answers", () => {
  it("every success response with a body has a schema", () => {
    expect(successes.length).toBeGreaterThan(40);
    expect(successes.filter(({ media }) => !media.schema).map(({ where }) => where)).toEqual([]);
  });

  it("no JSON success is a free-form object: each names its fields", () => {
    const json = successes.filter(({ type }) => type === "application/json");
    const freeForm = json
      .filter(({ where }) => !where.includes("/openapi.json"))
      .filter(({ media }) => isFreeForm(resolved(doc, media.schema)));
    expect(freeForm.map(({ where }) => where)).toEqual([]);
  });

  it("each tool's result is its own component, generated from the tool's result schema", () => {
    for (const name of Object.keys(toolRegistry) as ToolName[]) {
      const schema = at(doc, "paths", `/v1/tools/${name}`, "post", "responses", "200", "content");
      expect(at(schema, "application/json", "schema"), name).toEqual({
        $ref: `#/components/schemas/${toolResultName(name)}`,
      });
      expect(toolResultSchemas[name], name).toBeDefined();
    }
    const list = resolved(doc, { $ref: "#/components/schemas/SessionsListResult" });
    expect(at(list, "required")).toEqual(expect.arrayContaining(["count", "sessions"]));
    expect(at(list, "properties", "sessions", "items", "properties", "key")).toEqual({ type: "string" });
  });

  it("every JSON example is valid against its response's schema", () => {
    // The check itself fails a value the schema does not describe.
    const list = { $ref: "#/components/schemas/SessionsListResult" };
    expect(schemaErrors(doc, list, { count: "1", sessions: [{}] })).not.toEqual([]);
    const invalid = answers
      .filter(({ type, media }) => type === "application/json" && media.schema)
      .flatMap(({ where, media }) => {
        const named = Object.entries((media.examples ?? {}) as Record<string, { value: unknown }>);
        const examples = [
          ...("example" in media ? [["example", media.example]] : []),
          ...named.map(([n, e]) => [n, e.value]),
        ];
        return examples.flatMap(([name, value]) =>
          schemaErrors(doc, media.schema, value).map((error) => `${where} ${String(name)}: ${error}`),
        );
      });
    expect(invalid).toEqual([]);
  });

  it("each stream example is server-sent events whose data is valid against the stream's item schema", () => {
    const streams = successes.filter(({ type }) => type === "text/event-stream");
    expect(streams.length).toBe(3);
    for (const { where, media } of streams) {
      expect(schemaErrors(doc, media.schema, media.example), where).toEqual([]);
      const items = media["x-item-schema"];
      expect(items, where).toBeDefined();
      const frames = sseFrames(String(media.example)).filter((frame) => frame.data !== undefined);
      expect(frames.length, where).toBeGreaterThan(1);
      for (const frame of frames) {
        expect(schemaErrors(doc, items, frame.data), `${where} ${frame.event}`).toEqual([]);
        expect(at(frame.data, "kind"), where).toBe(frame.event);
      }
    }
  });
});

describe("query parameters", () => {
  /** The schema of a query parameter of `GET path`. */
  const param = (path: string, name: string) =>
    at(
      (doc.paths[path]?.get?.parameters ?? []).find((p) => p.in === "query" && p.name === name),
      "schema",
    );

  it("are typed as their route reads them: numbers as integers, flags as booleans", () => {
    expect(param("/v1/sessions/{key}/history", "limit")).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 1000,
    });
    expect(param("/v1/sessions/{key}/history", "offset")).toMatchObject({ type: "integer", minimum: 0 });
    expect(param("/v1/sessions/{key}/history", "includeTools")).toEqual({ type: "boolean" });
    expect(param("/v1/deliveries", "limit")).toMatchObject({ type: "integer", minimum: 1 });
    expect(param("/v1/deliveries", "status")).toMatchObject({ type: "string", enum: expect.any(Array) });
  });
});
