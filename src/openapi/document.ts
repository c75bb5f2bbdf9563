import { PRODUCT_NAME, VERSION } from "../version";
import { baseComponents } from "./components";
import { apiIntroduction, apiTags } from "./intro";
import { buildOperation } from "./operations";
import { openApiPath, routeTable } from "./route-table";
import { perToolRoutes } from "./tool-operations";
import type { HttpMethod, OpenApiDocument, RouteDoc } from "./types";

/** The routes as documented: the generic tool route becomes one route per registered tool. */
export function documentedRoutes(): RouteDoc[] {
  return routeTable.flatMap((route) => (route.perTool ? perToolRoutes(route) : [route]));
}

/** Builds the OpenAPI 3.1 document from the route table, the tool registry and their zod schemas. */
export function buildOpenApiDocument(): OpenApiDocument {
  const components = baseComponents();
  const paths: OpenApiDocument["paths"] = {};
  for (const route of documentedRoutes()) {
    const path = openApiPath(route.path);
    paths[path] = {
      ...paths[path],
      [route.method.toLowerCase() as Lowercase<HttpMethod>]: buildOperation(route, components),
    };
  }
  return {
    openapi: "3.1.1",
    info: { title: `${PRODUCT_NAME} API`, version: VERSION, description: apiIntroduction },
    servers: [{ url: "/", description: "This service" }],
    tags: apiTags,
    paths,
    components,
  };
}

let cached: OpenApiDocument | undefined;

/** The document, built once per isolate (the routes and the registry are fixed at build time). */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildOpenApiDocument();
  return cached;
}
