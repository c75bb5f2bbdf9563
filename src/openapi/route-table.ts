import { channelRouteDocs } from "./routes-channels";
import { cronRouteDocs } from "./routes-cron";
import { deliveryRouteDocs } from "./routes-deliveries";
import { erasureRouteDocs } from "./routes-erasure";
import { grantRouteDocs } from "./routes-grants";
import { hookRouteDocs } from "./routes-hooks";
import { maintenanceRouteDocs } from "./routes-maintenance";
import { routeRunDocs } from "./routes-runs";
import { serviceRoutes } from "./routes-service";
import { sessionRouteDocs } from "./routes-sessions";
import { streamRouteDocs } from "./routes-streams";
import type { RouteDoc } from "./types";

/**
 * Every route of the app, once: the OpenAPI document, docs/api.md and the /docs page are built from
 * this list, and test/openapi/route-table.test.ts fails when `app.routes` serves a route it lacks.
 */
export const routeTable: readonly RouteDoc[] = [
  ...serviceRoutes,
  ...sessionRouteDocs,
  ...erasureRouteDocs,
  ...routeRunDocs,
  ...grantRouteDocs,
  ...streamRouteDocs,
  ...deliveryRouteDocs,
  ...cronRouteDocs,
  ...channelRouteDocs,
  ...hookRouteDocs,
  ...maintenanceRouteDocs,
];

/** `/v1/runs/:runId` → `/v1/runs/{runId}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:(\w+)/g, "{$1}");
}

/** The names of a Hono path's parameters, in order. */
export function pathParamNames(honoPath: string): string[] {
  return [...honoPath.matchAll(/:(\w+)/g)].map((match) => match[1] ?? "");
}
