// The console check's layout steps: what a person sees, measured in the page rather than read from the
// markup. Nothing scrolls sideways at 375 px on any console page (the document, and no table within its
// own box); each label of the session page's forms sits above or beside its own field, one field to a
// line; a busy session's page keeps its send box in the first screen and its older runs and events
// folded; the icon answers; list filters start folded.
import { css, DESKTOP, shot } from "./console-kit.mjs";
import { offlineContext, VISIBLE_MS, visible } from "./harness.mjs";
import { OPERATOR_TOKEN, SEARCH_WORD } from "./seed.mjs";

export const NARROW = { width: 375, height: 812 };
/** The session page's forms whose labels and fields are measured. */
const SESSION_FORMS = ["form#send", "form#send-as", "form#patch"];
/** A busy session's page at 1280 px: at most this many screens tall (it was over 6,000 px at 375 px). */
const BUSY_SCREENS = 3;

/** Waits until every region of the view has loaded (none still says "Loading…"). */
export async function settled(page, where) {
  await page
    .waitForFunction(
      () =>
        document.querySelector("#view > :not(noscript)") !== null &&
        [...document.querySelectorAll("[data-src]")].every((region) => !/Loading…/.test(region.textContent)),
      undefined,
      { timeout: VISIBLE_MS },
    )
    .catch(() => {
      throw new Error(`${where}: a region was still loading after ${VISIBLE_MS / 1000} s`);
    });
}

/**
 * Throws naming what sticks out sideways: the document wider than the window, a table scrolling within
 * its box, or any visible cell, link, button, field or status past either edge of the window.
 */
export async function assertFits(page, where) {
  const problems = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const name = (element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""} "${(element.textContent || element.getAttribute("name") || "").trim().slice(0, 40)}"`;
    const found = [];
    const scrollWidth = document.documentElement.scrollWidth;
    if (scrollWidth > width) found.push(`the page scrolls sideways (scrollWidth ${scrollWidth} > ${width})`);
    for (const wrap of document.querySelectorAll(".table-wrap"))
      if (wrap.scrollWidth > wrap.clientWidth + 1)
        found.push(`a table scrolls sideways in its box (${wrap.scrollWidth} px in ${wrap.clientWidth})`);
    const shown = "#view :is(th, td, a, button, input, select, textarea, .status, time, code, summary)";
    for (const element of document.querySelectorAll(shown)) {
      // A table's header row is there for screen readers only when its rows are cards.
      if (element.closest("thead, .visually-hidden")?.getBoundingClientRect().width <= 1) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -0.5 || box.right > width + 0.5)
        found.push(`${name(element)} spans ${Math.round(box.left)}–${Math.round(box.right)} px`);
    }
    return found;
  });
  if (problems.length > 0)
    throw new Error(`${where} at ${NARROW.width} px: ${problems.slice(0, 4).join("; ")}`);
}

/**
 * Each `label[for]` of `formSelector` is above its field (its left edge, just over it) or beside it (on
 * its line, just before it), and no two labelled fields share a line: never "From session [ ] Message".
 */
async function assertLabelled(page, formSelector, where) {
  const problems = await page.evaluate((selector) => {
    const form = document.querySelector(selector);
    if (!form) return [`${selector} is missing`];
    const pairs = [...form.querySelectorAll("label[for]")].map((label) => ({
      name: label.textContent.trim(),
      label: label.getBoundingClientRect(),
      field: document.getElementById(label.htmlFor)?.getBoundingClientRect(),
    }));
    if (pairs.length === 0) return [`${selector} has no labelled field`];
    const found = [];
    for (const { name, label, field } of pairs) {
      if (!field) {
        found.push(`"${name}" names no field`);
        continue;
      }
      const above = label.bottom <= field.top + 1 && field.top - label.bottom <= 12;
      const aligned = Math.abs(label.left - field.left) <= 2;
      const beside =
        label.right <= field.left + 1 &&
        field.left - label.right <= 24 &&
        label.top < field.bottom &&
        field.top < label.bottom;
      if (!((above && aligned) || beside))
        found.push(
          `"${name}" is neither above nor beside its field (label ${Math.round(label.left)},${Math.round(label.top)}; field ${Math.round(field.left)},${Math.round(field.top)})`,
        );
    }
    const span = ({ label, field }) => [Math.min(label.top, field.top), Math.max(label.bottom, field.bottom)];
    for (const [index, one] of pairs.entries())
      for (const other of pairs.slice(index + 1)) {
        if (!one.field || !other.field) continue;
        const [top1, bottom1] = span(one);
        const [top2, bottom2] = span(other);
        if (Math.min(bottom1, bottom2) - Math.max(top1, top2) > 1)
          found.push(`"${one.name}" and "${other.name}" share a line`);
      }
    return found;
  }, formSelector);
  if (problems.length > 0) throw new Error(`${formSelector} ${where}: ${problems.join("; ")}`);
}

/** The session page's forms as forms, at 1280 px and at 375 px. */
export async function formsLaidOut({ page, base, seeded }) {
  await page.goto(`${base}/console/sessions/${encodeURIComponent(seeded.writerKey)}`);
  for (const viewport of [DESKTOP, NARROW]) {
    await page.setViewportSize(viewport);
    await settled(page, "the session page");
    for (const form of SESSION_FORMS) {
      await visible(page.locator(form), form);
      await assertLabelled(page, form, `at ${viewport.width} px`);
    }
  }
  await page.setViewportSize(DESKTOP);
}

/** How far the send box's top is below the window's, and whether the transcript shows its newest end. */
const sendBoxAndLog = (page) =>
  page.evaluate(() => {
    const log = document.querySelector("#transcript .log");
    return {
      sendTop: document.querySelector("form#send")?.getBoundingClientRect().top ?? Number.POSITIVE_INFINITY,
      sendBottom: document.querySelector("form#send")?.getBoundingClientRect().bottom ?? 0,
      logAtEnd: log ? log.scrollHeight - log.scrollTop - log.clientHeight < 2 : false,
      height: document.documentElement.scrollHeight,
    };
  });

/**
 * A session with 60 runs and a few hundred events: its page opens with the newest message and the send
 * box in sight, the newest runs and events shown and the older ones folded, a few screens tall at most.
 */
export async function busySession({ page, base, seeded }) {
  await page.goto(`${base}/console/sessions/${encodeURIComponent(seeded.busyKey)}`);
  for (const viewport of [DESKTOP, NARROW]) {
    // Opened at this width, as a person on this screen would.
    await page.setViewportSize(viewport);
    await page.reload();
    await settled(page, "the busy session's page");
    await visible(page.locator("#transcript article.message"), "#transcript article.message");
    for (const fold of ["#runs details.older[data-key=runs-older]", "#events details.older"]) {
      const details = await visible(page.locator(fold), fold);
      if (await details.evaluate((element) => element.open)) throw new Error(`${fold} opens unfolded`);
    }
    const seen = await sendBoxAndLog(page);
    if (seen.sendTop < 0 || seen.sendBottom > viewport.height)
      throw new Error(
        `at ${viewport.width} px form#send is not in the first screen (${Math.round(seen.sendTop)}–${Math.round(seen.sendBottom)} px of ${viewport.height})`,
      );
    if (!seen.logAtEnd)
      throw new Error(`at ${viewport.width} px #transcript .log does not open at its newest`);
    if (viewport === DESKTOP && seen.height > BUSY_SCREENS * viewport.height)
      throw new Error(`the page is ${seen.height} px tall at 1280 px (over ${BUSY_SCREENS} screens)`);
    if (viewport === NARROW) await assertFits(page, "the busy session's page");
  }
  await page.setViewportSize(DESKTOP);
}

/** Every console page, in a tab of its own 375 px wide: the sign-in form, then each page signed in. */
export async function everyPageNarrow({ browser, base, seeded }) {
  const guard = await offlineContext(browser, { viewport: NARROW });
  try {
    const page = await guard.context.newPage();
    await page.goto(`${base}/console`);
    await visible(page.locator("#token"), "#token");
    await assertFits(page, "the sign-in form");
    await page.locator("#token").fill(OPERATOR_TOKEN);
    await page.locator("#token").press("Enter");
    await visible(page.locator("h1", { hasText: "Sessions" }), 'h1 "Sessions"');
    const pages = [
      ["the sessions list", "/console/sessions"],
      ["the filtered sessions list", "/console/sessions?kinds=other&agentId=main"],
      ["the message search", `/console/sessions?q=${SEARCH_WORD}`],
      ["a session page", `/console/sessions/${encodeURIComponent(seeded.writerKey)}`],
      ["the exact view", `/console/sessions/${encodeURIComponent(seeded.writerKey)}?view=exact`],
      ["the channel session's page", `/console/sessions/${encodeURIComponent(seeded.channelKey)}`],
      ["the deliveries page", "/console/deliveries"],
      ["the channels page", "/console/channels"],
      ["a channel's page", "/console/channels/telegram"],
      ["the storage page", "/console/storage"],
    ];
    for (const [what, path] of pages) {
      await page.goto(`${base}${path}`);
      await settled(page, what);
      await assertFits(page, what);
    }
    // The sessions and deliveries rows as cards: status and the actions in sight, not off to the side.
    await page.goto(`${base}/console/deliveries`);
    await settled(page, "the deliveries page");
    const row = `section#attention tr[data-delivery=${css(seeded.deliveryId)}]`;
    await visible(page.locator(`${row} .status`), `${row} .status`);
    await visible(page.locator(`${row} form.retry button`), `${row} form.retry button`);
    await shot(page, "deliveries-375");
    await page.goto(`${base}/console/sessions`);
    await settled(page, "the sessions list");
    await visible(page.locator("table.sessions tr[data-key] .status"), "table.sessions .status");
    await shot(page, "sessions-375");
    await page.goto(`${base}/console/channels`);
    await settled(page, "the channels page");
    await visible(page.locator("table.channels tr[data-channel=telegram] th a"), "table.channels telegram");
    await shot(page, "channels-375");
    await page.goto(`${base}/console/storage`);
    await settled(page, "the storage page");
    await shot(page, "storage-375");
    guard.assertClean("the console at 375 px");
  } finally {
    await guard.context.close();
  }
}

/** /favicon.ico answers the icon, and the page names it (no 404 on every load). */
export async function faviconServed({ page, base }) {
  const response = await page.request.get(`${base}/favicon.ico`);
  const icon = {
    status: response.status(),
    type: response.headers()["content-type"],
    text: await response.text(),
  };
  if (icon.status !== 200 || icon.type !== "image/svg+xml" || !icon.text.startsWith("<svg"))
    throw new Error(`/favicon.ico answered ${icon.status} ${icon.type}: ${icon.text.slice(0, 80)}`);
  const named = await page.locator('head link[rel="icon"]').getAttribute("href");
  if (named !== "/favicon.ico") throw new Error(`link[rel=icon] names ${named}, not /favicon.ico`);
}

/** The lists open with their filters folded (the rows come first), and a click unfolds them. */
export async function filtersFolded({ page, base }) {
  for (const path of ["/console/sessions", "/console/deliveries"]) {
    await page.goto(`${base}${path}`);
    await settled(page, path);
    const box = await visible(page.locator("details.filter-box"), `details.filter-box on ${path}`);
    if (await box.evaluate((element) => element.open))
      throw new Error(`the filters on ${path} open unfolded`);
    if (await page.locator("form.filters").isVisible()) throw new Error(`form.filters shows on ${path}`);
    await box.locator("> summary").click();
    await visible(page.locator("form.filters"), `form.filters on ${path} after a click on its summary`);
  }
}
