import { inspectRoutes } from "hono/dev";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { buildOpenApiDocument, documentedRoutes } from "../../src/openapi/document";
import { openApiPath, pathParamNames, routeTable } from "../../src/openapi/route-table";

// Middleware is what `app.use` registers (method ALL, a `next` parameter); every other entry is a route.
// The console's pages, assets and fragments under /console/ are HTML for its own script, not the API;
// `GET /console` stands for them in the document.
const served = inspectRoutes(app)
  .filter((route) => !(route.isMiddleware && route.method === "ALL"))
  .filter((route) => !route.path.startsWith("/console/"))
  .map((route) => `${route.method} ${route.path}`);
const listed = routeTable.map((route) => `${route.method} ${route.path}`);

describe("the route table", () => {
  it("documents every route the app serves (add new routes to src/openapi/routes-*.ts)", () => {
    expect(served.filter((route) => !listed.includes(route))).toEqual([]);
  });

  it("lists no route the app does not serve", () => {
    expect(listed.filter((route) => !served.includes(route))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("puts every route in the document, the tool route once per tool", () => {
    const doc = buildOpenApiDocument();
    for (const route of routeTable.filter((entry) => !entry.perTool)) {
      expect(doc.paths[openApiPath(route.path)], route.path).toHaveProperty(route.method.toLowerCase());
    }
    expect(doc.paths["/v1/tools/{name}"]).toBeUndefined();
  });

  it("describes every path parameter", () => {
    for (const route of documentedRoutes()) {
      for (const name of pathParamNames(route.path))
        expect(route.pathParams?.[name], route.path).toBeTruthy();
    }
  });

  it("has request examples that the route's own schema accepts", () => {
    for (const route of documentedRoutes().filter((entry) => entry.body)) {
      const body = route.body;
      if (!body) continue;
      const parsed = body.schema.safeParse(body.example);
      expect(parsed.error?.issues ?? [], `${route.method} ${route.path}`).toEqual([]);
    }
  });
});
