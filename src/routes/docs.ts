import { Scalar } from "@scalar/hono-api-reference";
import { type Context, Hono } from "hono";
import scalarPackage from "../../node_modules/@scalar/api-reference/package.json";
import type { AppEnv } from "../app-env";
import { openApiDocument } from "../openapi/document";
import { renderStaticReference } from "../openapi/html";
import { PRODUCT_NAME } from "../version";
import scalarStandalone from "./scalar-standalone.js";

/**
 * Scalar's browser bundle, served by this Worker so /docs is interactive offline (`npm start`, the
 * browser check) and never depends on a CDN. It is a Text module in the Worker bundle (wrangler.toml
 * `[[rules]]`) rather than a Static Asset: `wrangler dev`, `wrangler deploy` and the vitest plugin all
 * bundle it the same way, with no copy step to forget, at the cost of a larger upload (6 MB, 1.5 MB
 * gzipped, against 1.7 MB without it). The version in the URL lets browsers cache it for good.
 */
export const SCALAR_SCRIPT_URL = `/docs/scalar.js?v=${scalarPackage.version}`;

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

/** `GET /docs` and its script, no token: the API reference page, rendered from /openapi.json. */
export const docsRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    page ??= await referencePage(c);
    return c.html(page);
  })
  .get("/scalar.js", (c) =>
    c.body(scalarStandalone, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=31536000, immutable",
    }),
  );
