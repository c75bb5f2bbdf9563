// /docs in Chromium: Scalar's interactive reference (its script a static asset of the origin) mounts and renders
// every tool route listed in /openapi.json without asking for anything off-host, and with JavaScript off
// the static fallback lists the same routes.
import { offlineContext, VISIBLE_MS } from "./harness.mjs";

const VISIBLE = { state: "visible", timeout: VISIBLE_MS };

/** The tool names the served document lists as `POST /v1/tools/{name}`. */
async function documentedTools(base) {
  const response = await fetch(`${base}/openapi.json`);
  if (!response.ok) throw new Error(`/openapi.json answered ${response.status}`);
  const document = await response.json();
  const tools = Object.keys(document.paths)
    .filter((route) => route.startsWith("/v1/tools/"))
    .map((route) => route.slice("/v1/tools/".length));
  if (tools.length === 0) throw new Error("/openapi.json lists no tool routes");
  return tools;
}

async function openDocs(context, base) {
  const page = await context.newPage();
  const response = await page.goto(`${base}/docs`, { waitUntil: "load" });
  if (response?.status() !== 200) throw new Error(`/docs answered ${response?.status()}`);
  return page;
}

/**
 * With JavaScript: Scalar's bundle, a static asset of the origin, must mount its reference in place of the
 * static one and render an operation per tool, its name visible, with no request leaving loopback.
 */
async function checkInteractive(browser, base, tools) {
  const { context, blocked } = await offlineContext(browser);
  const page = await openDocs(context, base);
  const scalar = page.locator("#app .scalar-api-reference");
  await scalar
    .first()
    .waitFor(VISIBLE)
    .catch(() => {
      const off = [...blocked].join(", ") || "none";
      throw new Error(`Scalar's reference did not mount within 10 s (off-host requests blocked: ${off})`);
    });
  await page.locator(".static-reference").waitFor({ state: "detached", timeout: VISIBLE_MS });
  for (const tool of tools) {
    // Scalar's own markup: an operation section (id ending in the method and path), the name in its sidebar.
    await scalar
      .locator(`[id$="/POST/v1/tools/${tool}"]`)
      .first()
      .waitFor({ state: "attached", timeout: VISIBLE_MS });
    await scalar.getByText(tool, { exact: true }).first().waitFor(VISIBLE);
  }
  if (blocked.size > 0) throw new Error(`/docs tried to leave loopback: ${[...blocked].join(", ")}`);
  await context.close();
}

/** Without JavaScript: the static reference inside Scalar's mount point lists every tool route. */
async function checkStaticFallback(browser, base, tools) {
  const { context } = await offlineContext(browser, { javaScriptEnabled: false });
  const page = await openDocs(context, base);
  const fallback = page.locator("#app .static-reference");
  for (const tool of tools) await fallback.getByText(`POST /v1/tools/${tool}`).first().waitFor(VISIBLE);
  await context.close();
}

/** Opens /docs offline, with and without JavaScript; answers one line about what it saw. */
export async function checkDocs(browser, base) {
  const tools = await documentedTools(base);
  await checkInteractive(browser, base, tools);
  await checkStaticFallback(browser, base, tools);
  return `/docs: Scalar's interactive reference (its bundle a static asset of the origin) renders all ${tools.length} tool routes; with JavaScript off the static reference lists them`;
}
