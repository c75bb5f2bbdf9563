import { Scalar } from "@scalar/hono-api-reference";
import { type Context, Hono } from "hono";
import type { AppEnv } from "../app-env";
import { openApiDocument } from "../openapi/document";
import { renderStaticReference } from "../openapi/html";
import { PRODUCT_NAME } from "../version";

/**
 * Scalar's browser bundle, from this origin so /docs is interactive offline and never depends on a CDN.
 * A static asset (wrangler.toml `[assets]`, filled by scripts/static-assets.mjs), not part of the Worker:
 * its 4.35 MB were two thirds of the Worker bundle. Served with an ETag, so a browser revalidates it.
 */
export const SCALAR_SCRIPT_URL = "/docs/scalar.js";

const reference = Scalar<AppEnv>({
  url: "/openapi.json",
  cdn: SCALAR_SCRIPT_URL,
  pageTitle: `${PRODUCT_NAME} API reference`,
  withDefaultFonts: false,
  telemetry: false,
});

const MOUNT_POINT = '<div id="app"></div>';

let page: string | undefined;

/** Scalar's page with the static reference inside its mount point, which Scalar clears on mounting. */
async function referencePage(c: Context<AppEnv>): Promise<string> {
  const response = await reference(c, async () => {});
  const html = response ? await response.text() : "";
  const content = renderStaticReference(openApiDocument());
  return html.includes(MOUNT_POINT)
    ? html.replace(MOUNT_POINT, `<div id="app">${content}</div>`)
    : html.replace("</body>", `${content}</body>`);
}

/** `GET /docs`, no token: the API reference page, rendered from /openapi.json. */
export const docsRoutes = new Hono<AppEnv>().get("/", async (c) => {
  page ??= await referencePage(c);
  return c.html(page);
});
