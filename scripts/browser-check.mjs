#!/usr/bin/env node
// `npm run test:browser`: serves the Worker with `wrangler dev` on loopback (offline, as `npm start` does),
// opens /docs in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core) with every
// off-host request blocked, and checks that the page shows every tool route listed in /openapi.json.
// Prints one line `browser check: PASS …` or `browser check: FAIL …`; exits non-zero on failure.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

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

/** Opens /docs with no internet and checks every tool route is visible; says which rendering it saw. */
async function checkDocsPage(base, tools) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext();
    const blocked = new Set();
    // The check must not depend on the network: everything but this Worker is cut off.
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === HOST) return route.continue();
      blocked.add(`${url.origin}${url.pathname}`);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const response = await page.goto(`${base}/docs`, { waitUntil: "load" });
    if (response?.status() !== 200) throw new Error(`/docs answered ${response?.status()}`);
    for (const tool of tools) {
      await page.getByText(tool, { exact: true }).first().waitFor({ state: "visible", timeout: 10_000 });
      await page.getByText(`POST /v1/tools/${tool}`).first().waitFor({ state: "visible", timeout: 10_000 });
    }
    const staticReference = (await page.locator(".static-reference").count()) > 0;
    return { version: browser.version(), staticReference, blocked: [...blocked] };
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
    const seen = await checkDocsPage(base, tools);
    const rendering = seen.staticReference
      ? `static reference; Scalar's script not loaded (blocked: ${seen.blocked.join(", ") || "none"})`
      : "interactive Scalar reference";
    return `/docs shows all ${tools.length} tool routes (${tools.join(", ")}) in Chromium ${seen.version}, offline; ${rendering}`;
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
