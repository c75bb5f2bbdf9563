import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { openApiDocument } from "../openapi/document";

/** `GET /openapi.json`, no token: every route and registered tool, from their zod schemas (SPEC §9). */
export const openApiRoutes = new Hono<AppEnv>().get("/", (c) => c.json(openApiDocument()));
