#!/usr/bin/env node
// `npm run test:browser`: serves the Worker with `wrangler dev` on loopback (offline, as `npm start` does),
// opens /docs in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core) with every
// off-host request blocked, and checks that Scalar's interactive reference (its script served by the
// Worker) mounts and renders every tool route listed in /openapi.json, that the page asked for nothing
// off-host, and that with JavaScript off the static fallback lists the same routes.
// Prints one line `browser check: PASS …` or `browser check: FAIL …`; exits non-zero on failure.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { readDemoConfig } from "./demo-config.mjs";

const HOST = "127.0.0.1";
const ROOT = path.resolve(import.meta.dirname, "..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const DEADLINE_MS = 60_000;
const READY_MS = 40_000;

/** A port nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, HOST, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** `wrangler dev` in its own process group, so stopping it stops workerd too. */
function startWrangler(port, inspectorPort, persistTo) {
  const output = [];
  const child = spawn(
    path.join(ROOT, "node_modules", ".bin", "wrangler"),
    [
      "dev",
      ...["--ip", HOST, "--port", String(port), "--inspector-port", String(inspectorPort)],
      ...["--persist-to", persistTo, "--show-interactive-dev-session=false"],
      // The demo configuration, as `npm start` serves it.
      ...["--var", `SWITCHBOARD_CONFIG:${JSON.stringify(readDemoConfig())}`],
    ],
    {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      // Offline by design, as scripts/start.mjs: no Request.cf download, no telemetry.
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
    },
  );
  for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk) => output.push(String(chunk)));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { child, output, exited };
}

async function stopWrangler({ child, exited }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  signalGroup("SIGTERM");
  const stopped = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
  if (!stopped) signalGroup("SIGKILL");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntilServing(base, wrangler) {
  const until = Date.now() + READY_MS;
  while (Date.now() < until) {
    if (wrangler.child.exitCode !== null)
      throw new Error(`wrangler dev exited with ${wrangler.child.exitCode}`);
    try {
      const response = await fetch(`${base}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  throw new Error(`wrangler dev did not answer /healthz within ${READY_MS / 1000} s`);
}

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

const VISIBLE = { state: "visible", timeout: 10_000 };

/** A browser context in which every request but this Worker's is cut off and recorded. */
async function offlineContext(browser, options) {
  const context = await browser.newContext(options);
  const blocked = new Set();
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === HOST) return route.continue();
    blocked.add(`${url.origin}${url.pathname}`);
    return route.abort("internetdisconnected");
  });
  return { context, blocked };
}

async function openDocs(context, base) {
  const page = await context.newPage();
  const response = await page.goto(`${base}/docs`, { waitUntil: "load" });
  if (response?.status() !== 200) throw new Error(`/docs answered ${response?.status()}`);
  return page;
}

/**
 * With JavaScript: Scalar's bundle, served by the Worker, must mount its reference in place of the static
 * one and render an operation per tool, its name visible, with no request leaving loopback.
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
  await page.locator(".static-reference").waitFor({ state: "detached", timeout: 10_000 });
  for (const tool of tools) {
    // Scalar's own markup: an operation section (id ending in the method and path), the name in its sidebar.
    await scalar
      .locator(`[id$="/POST/v1/tools/${tool}"]`)
      .first()
      .waitFor({ state: "attached", timeout: 10_000 });
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

/** Opens /docs offline, with and without JavaScript; answers the browser's version. */
async function checkDocsPage(base, tools) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  try {
    await checkInteractive(browser, base, tools);
    await checkStaticFallback(browser, base, tools);
    return browser.version();
  } finally {
    await browser.close();
  }
}

/** What main started, so a timeout can still stop it. */
const started = { wrangler: undefined, persistTo: undefined };

async function cleanUp() {
  if (started.wrangler) await stopWrangler(started.wrangler);
  if (started.persistTo) rmSync(started.persistTo, { recursive: true, force: true });
}

async function main() {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const base = `http://${HOST}:${port}`;
  started.persistTo = mkdtempSync(path.join(tmpdir(), "switchboard-browser-check-"));
  const wrangler = startWrangler(port, inspectorPort, started.persistTo);
  started.wrangler = wrangler;
  try {
    await waitUntilServing(base, wrangler);
    const tools = await documentedTools(base);
    const version = await checkDocsPage(base, tools);
    return `/docs in Chromium ${version}, offline: Scalar's interactive reference (its bundle from the Worker) renders all ${tools.length} tool routes (${tools.join(", ")}); with JavaScript off the static reference lists them`;
  } catch (error) {
    console.error(wrangler.output.join("").split("\n").slice(-30).join("\n"));
    throw error;
  }
}

let outcome;
try {
  const summary = await Promise.race([
    main(),
    sleep(DEADLINE_MS).then(() => {
      throw new Error(`timed out after ${DEADLINE_MS / 1000} s`);
    }),
  ]);
  outcome = { ok: true, line: `browser check: PASS — ${summary}` };
} catch (error) {
  outcome = { ok: false, line: `browser check: FAIL — ${error instanceof Error ? error.message : error}` };
}
await cleanUp();
console.log(outcome.line);
process.exit(outcome.ok ? 0 : 1);
