// What the console check's step files share: the committed screenshots, selector quoting, and waiting
// for something that shows only after a reload (a list read from the index, which catches up shortly).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { sleep, VISIBLE_MS } from "./harness.mjs";

const SHOTS = path.resolve(import.meta.dirname, "..", "..", "docs", "console");
export const DESKTOP = { width: 1280, height: 900 };

/** A full-page screenshot under docs/console/, the same name every run. */
export async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Quotes a value for a CSS attribute selector. */
export const css = (value) => JSON.stringify(value);

/**
 * Opens `url` until `holds(page)` answers true (a page's view is fetched after load, so `holds` waits
 * for what it reads); the error says `what` never held.
 */
export async function untilAfterReload(page, url, what, holds, timeout = VISIBLE_MS) {
  const deadline = Date.now() + timeout;
  for (;;) {
    await page.goto(url);
    if (await holds(page)) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeout / 1000} s`);
    await sleep(500);
  }
}
