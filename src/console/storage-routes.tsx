import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { maintenanceReport } from "../maintenance/report";
import { requireOperator } from "./access";
import { StorageView } from "./pages/storage";

/** The Storage page's fragment: the operator's alone, like `POST /v1/maintenance`; always a dry run. */
export const storageRoutes = new Hono<AppEnv>().get("/", async (c) => {
  requireOperator(c);
  const report = await maintenanceReport(c.env, c.get("config"), "dry-run");
  return c.html(<StorageView report={report} />);
});
