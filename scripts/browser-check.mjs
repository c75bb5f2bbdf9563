#!/usr/bin/env node
// `npm run test:browser`: one `wrangler dev` on loopback (offline, its own throw-away state, local tokens)
// serving the demo agents plus the console check's (scripts/browser/seed.mjs), whose model, webhook agent
// and channel webhook are real local servers (scripts/browser/outside-world.mjs); Debian's Chromium
// (playwright-core) with every off-host request blocked then checks /docs (scripts/browser/docs-check.mjs)
// and /console (scripts/browser/console-check.mjs, which also rewrites the screenshots in docs/console/).
// Prints one line `browser check: PASS …` or `browser check: FAIL …`; exits non-zero on failure.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkConsole } from "./browser/console-check.mjs";
import { checkDocs } from "./browser/docs-check.mjs";
import { launchChromium, sleep } from "./browser/harness.mjs";
import { startOutsideWorld } from "./browser/outside-world.mjs";
import { checkConfig, checkVars, seed } from "./browser/seed.mjs";
import { startWrangler } from "./cli-check-wrangler.mjs";

const DEADLINE_MS = 150_000;

/** What main started, so a failure or the deadline can still stop it. */
const started = { world: undefined, wrangler: undefined, browser: undefined, state: undefined };

async function cleanUp() {
  await started.browser?.close().catch(() => {});
  await started.wrangler?.stop();
  await started.world?.stop();
  if (started.state) rmSync(started.state, { recursive: true, force: true });
}

/** The end of wrangler's log, for a failure's diagnosis. */
function wranglerTail() {
  try {
    return readFileSync(path.join(started.state, "wrangler", "wrangler.log"), "utf8")
      .split("\n")
      .slice(-30)
      .join("\n");
  } catch {
    return "(no wrangler log)";
  }
}

async function main() {
  started.state = mkdtempSync(path.join(tmpdir(), "switchboard-browser-check-"));
  started.world = await startOutsideWorld();
  started.wrangler = await startWrangler(path.join(started.state, "wrangler"), {
    config: checkConfig(started.world.url),
    vars: checkVars,
  });
  const base = started.wrangler.url;
  const seeded = await seed(base, started.world);
  started.browser = await launchChromium();
  const docs = await checkDocs(started.browser, base);
  const consoleLine = await checkConsole(started.browser, base, seeded, started.world);
  return `Chromium ${started.browser.version()}, offline. ${docs}. ${consoleLine}`;
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
  if (started.state) console.error(wranglerTail());
  outcome = { ok: false, line: `browser check: FAIL — ${error instanceof Error ? error.message : error}` };
}
await cleanUp();
console.log(outcome.line);
process.exit(outcome.ok ? 0 : 1);
