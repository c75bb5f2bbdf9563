import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { errorStatus, invokeErrorTypes } from "../../src/errors";
import type { waitResultSchema } from "../../src/openapi/components";
import { buildOpenApiDocument } from "../../src/openapi/document";
import { hoistDefs, zodJsonSchema } from "../../src/openapi/json-schema";
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from "../../src/openapi/types";
import type { waitResult } from "../../src/routes/v1/run-view";
import { at, openApiProblems, resolvePointer } from "./check-openapi";

const doc = buildOpenApiDocument();

/** The operation at `method path` of a document; fails the test if it has none. */
function operation(document: OpenApiDocument, path: string, method: "get" | "post"): OpenApiOperation {
  const found = document.paths[path]?.[method];
  if (!found) throw new Error(`no ${method} ${path} in the document`);
  return found;
}

describe("the OpenAPI document", () => {
  it("is a structurally valid OpenAPI 3.1 document", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: "Switchboard API", version: expect.any(String) });
    expect(openApiProblems(doc)).toEqual([]);
    // Plain JSON all the way down: nothing is lost on the wire.
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it("the structural check catches broken documents", () => {
    const broken = structuredClone(doc);
    broken.openapi = "3.0.3";
    operation(broken, "/v1/sessions", "post").responses = {};
    operation(broken, "/v1/runs/{runId}", "get").parameters = [];
    operation(broken, "/v1/sessions/{key}", "get").responses["404"] = { $ref: "#/components/responses/Nope" };
    operation(broken, "/healthz", "get").security = [{ nope: [] }];
    expect(openApiProblems(broken)).toEqual(
      expect.arrayContaining([
        "openapi is not 3.1.x",
        "POST /v1/sessions: no responses",
        "GET /healthz: unknown security scheme nope",
        "GET /v1/runs/{runId}: path parameter runId not declared as required",
        expect.stringContaining("$ref #/components/responses/Nope does not resolve"),
      ]),
    );
  });

  it("has the bearer scheme, and the channel signature for inbound channel messages", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.channelSignature).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-Switchboard-Signature",
    });
    expect(doc.paths["/v1/sessions"]?.post?.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths["/v1/channels/{channel}/messages"]?.post?.security).toEqual([{ channelSignature: [] }]);
    for (const path of ["/healthz", "/openapi.json", "/docs"])
      expect(doc.paths[path]?.get?.security).toEqual([]);
  });

  it("models errors with the codes of src/errors.ts, and /tools/invoke's own error shape", () => {
    const codes = Object.keys(errorStatus);
    expect(at(doc.components.schemas.Error, "properties", "error", "properties", "code", "enum")).toEqual(
      codes,
    );
    expect(
      at(doc.components.schemas.InvokeError, "properties", "error", "properties", "type", "enum"),
    ).toEqual(invokeErrorTypes);
    // OpenClaw's types there, not our codes.
    expect(invokeErrorTypes).toEqual(expect.arrayContaining(["not_found", "tool_error", "invalid_request"]));
    expect(invokeErrorTypes).not.toContain("tool_not_found");
    const invoke400 = resolvePointer(doc, String(doc.paths["/tools/invoke"]?.post?.responses["400"]?.$ref));
    expect(at(invoke400, "content", "application/json", "example")).toEqual({
      ok: false,
      error: { type: "tool_error", message: "sessionKey required" },
    });
    expect(at(invoke400, "description")).toContain("Types: `tool_error`, `invalid_request`.");
    const rest404 = resolvePointer(doc, String(doc.paths["/v1/sessions/{key}"]?.get?.responses["404"]?.$ref));
    expect(at(rest404, "content", "application/json", "schema")).toEqual({
      $ref: "#/components/schemas/Error",
    });
    // Each status lists the codes that map to it.
    expect(at(rest404, "description")).toContain("`not_found`");
    expect(at(rest404, "description")).toContain("`tool_not_found`");
  });

  it("shows the real shape of imported transcript messages, not the opaque validator", () => {
    const items = at(doc.components.schemas.ImportTranscriptRequest, "properties", "messages", "items");
    expect(at(items, "required")).toEqual(expect.arrayContaining(["id", "role", "content", "timestamp"]));
    expect(at(items, "properties", "role", "enum")).toContain("assistant");
  });

  it("has examples for every request body and success response", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const body = at(operation.requestBody, "content", "application/json");
        if (body) expect(at(body, "example"), `${method} ${path} body`).toBeDefined();
        // JSON answers show an example; files, pages and this document itself need none.
        const json = Object.entries(operation.responses).filter(([, r]) =>
          at(r, "content", "application/json"),
        );
        for (const [status, response] of json) {
          const media = at(response, "content", "application/json");
          if (path === "/openapi.json") continue;
          expect(at(media, "example") ?? at(media, "examples"), `${method} ${path} ${status}`).toBeDefined();
        }
      }
    }
  });

  it("moves the $defs of a recursive schema into components, so its references resolve", () => {
    const node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(node);
      },
    });
    const json = zodJsonSchema(z.object({ tree: node, other: node }), "input");
    expect(json.$defs).toBeDefined();
    const schemas: Record<string, JsonSchema> = {};
    schemas.Tree = hoistDefs("Tree", json, schemas);
    const hoisted = {
      openapi: "3.1.1",
      info: { title: "t", version: "1" },
      paths: {},
      components: { schemas },
    };
    expect(JSON.stringify(hoisted)).not.toContain("#/$defs/");
    expect(Object.keys(schemas).some((name) => name.startsWith("Tree."))).toBe(true);
    expect(
      openApiProblems({
        ...hoisted,
        paths: { "/x": { get: { operationId: "x", responses: { 200: { description: "ok" } } } } },
      }),
    ).toEqual([]);
  });

  it("keeps the documented wait result in step with the one the routes return", () => {
    expectTypeOf<ReturnType<typeof waitResult>>().toEqualTypeOf<z.output<typeof waitResultSchema>>();
  });
});
