// What every browser check shares: Debian's Chromium driven by playwright-core, browser contexts that
// cannot leave loopback and that record whatever a page logged as an error, and named steps whose
// failure says which step and which selector (scripts/browser-check.mjs runs them).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export const HOST = "127.0.0.1";
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

/** How long one element may take to show up; a live refresh or a streamed reply comes well within it. */
export const VISIBLE_MS = 10_000;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

/**
 * A browser context in which every request but loopback's is cut off and recorded (`blocked`), and every
 * console error, uncaught exception or CSP violation of its pages is recorded (`problems`) unless a step
 * expects it (`expectErrors`, e.g. the 401 a wrong token gets).
 */
export async function offlineContext(browser, options) {
  const context = await browser.newContext(options);
  const blocked = new Set();
  const problems = [];
  const expected = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === HOST) return route.continue();
    blocked.add(`${url.origin}${url.pathname}`);
    return route.abort("internetdisconnected");
  });
  const record = (text) => {
    if (!expected.some((pattern) => pattern.test(text))) problems.push(text);
  };
  context.on("page", (page) => {
    page.on("console", (message) => {
      if (message.type() === "error") record(`console error: ${message.text()}`);
    });
    page.on("pageerror", (error) => record(`uncaught: ${error.message}`));
  });
  return {
    context,
    blocked,
    problems,
    /** Runs `body` with console errors matching `patterns` expected (not problems). */
    async expectErrors(patterns, body) {
      expected.push(...patterns);
      try {
        return await body();
      } finally {
        expected.splice(expected.length - patterns.length, patterns.length);
      }
    },
    /** Throws when a page left loopback or logged an error; `where` names the check. */
    assertClean(where) {
      if (blocked.size > 0) throw new Error(`${where} tried to leave loopback: ${[...blocked].join(", ")}`);
      if (problems.length > 0) throw new Error(`${where} logged errors: ${problems.join(" | ")}`);
    },
  };
}

/** Where a failed step's screenshot goes: a fresh temporary directory, never the committed docs. */
let failureDir;

/**
 * Runs one named step; its failure becomes `<name>: <why>`, with a screenshot of `page` (if given) saved
 * for whoever reads the log.
 */
export async function step(name, page, body) {
  try {
    return await body();
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    let shot = "";
    if (page && !page.isClosed()) {
      failureDir ??= mkdtempSync(path.join(tmpdir(), "switchboard-browser-failure-"));
      const file = path.join(failureDir, `${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
      shot = await page
        .screenshot({ path: file, fullPage: true, timeout: 5000 })
        .then(() => ` (screenshot: ${file})`)
        .catch(() => "");
    }
    throw new Error(`step "${name}": ${why}${shot}`);
  }
}

/** Waits for `locator` to be visible; the error names `selector` (what the markup contract calls it). */
export async function visible(locator, selector, timeout = VISIBLE_MS) {
  await locator
    .first()
    .waitFor({ state: "visible", timeout })
    .catch(() => {
      throw new Error(`${selector} did not show within ${timeout / 1000} s`);
    });
  return locator.first();
}

/** Waits until `locator`'s text matches `pattern`; the error names `selector` and the text it last had. */
export async function textMatches(locator, selector, pattern, timeout = VISIBLE_MS) {
  const until = Date.now() + timeout;
  let last = "(not found)";
  while (Date.now() < until) {
    if ((await locator.count()) > 0) {
      last = (await locator.first().textContent()) ?? "";
      if (pattern.test(last)) return last;
    }
    await sleep(100);
  }
  throw new Error(
    `${selector} never matched ${pattern} within ${timeout / 1000} s (last: ${JSON.stringify(last.trim().slice(0, 200))})`,
  );
}
