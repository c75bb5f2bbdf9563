// /console in Chromium, driven through the markup contract every console page keeps (README "Console"):
// sign in (a wrong token first, then the keyboard only), the sessions list, search, a session page (the
// script probe shown as text, a message sent and its reply seen streaming in, a sub-agent killed from the
// tree, the operator's actions and a compaction: console-actions.mjs), the page at 375 px, archive and
// restore, the deliveries page (a reply that gave up, retried until delivered), what a person sees
// measured in the page (console-layout.mjs: each form label with its field, a busy session's page, the
// icon, folded filters, nothing sideways at 375 px on any page), and a grant's view (console-grant.mjs).
// One small function per step, so a changed selector is one place to fix; a failing step names itself
// and its selector.
import { archiveAndRestore, compact, exportTranscript, patchLabel, sendAs } from "./console-actions.mjs";
import { grantSignIn } from "./console-grant.mjs";
import { css, DESKTOP, shot } from "./console-kit.mjs";
import {
  assertFits,
  busySession,
  everyPageNarrow,
  faviconServed,
  filtersFolded,
  formsLaidOut,
  NARROW,
  settled,
} from "./console-layout.mjs";
import { offlineContext, sleep, step, textMatches, VISIBLE_MS, visible } from "./harness.mjs";
import { replyTo } from "./outside-world.mjs";
import { OPERATOR_TOKEN, SCRIPT_PROBE, SEARCH_WORD } from "./seed.mjs";

const SENT = "What time is the next high tide?";
const DELIVERED_MS = 20_000;
/** Tab presses allowed to reach #token when the page did not focus it on load. */
const TABS_TO_TOKEN = 5;

async function signInForm({ page, base }) {
  await page.goto(`${base}/console`);
  await visible(page.locator("#token"), "#token (the sign-in form)");
  await shot(page, "sign-in");
}

/** A wrong token: a clear message in #sign-in-error, nothing that looks like a stack trace. */
async function wrongToken({ page, guard }) {
  // The client's whoami gets a 401, which Chromium logs as a failed resource: expected here.
  await guard.expectErrors([/status of 401/], async () => {
    await page.locator("#token").fill("not-the-operator-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    const said = await textMatches(page.locator("#sign-in-error"), "#sign-in-error", /not accepted/i);
    if (/\bat \S+:\d+|Error:|stack/i.test(said)) throw new Error(`#sign-in-error shows internals: ${said}`);
  });
}

/**
 * With the keyboard only: on a fresh load of the sign-in page focus is on #token (or Tab reaches it),
 * the token is typed and Enter signs in.
 */
async function keyboardSignIn({ page, base }) {
  await page.goto(`${base}/console`);
  await visible(page.locator("#token"), "#token");
  const focused = () => page.evaluate(() => document.activeElement?.id === "token");
  for (let tabs = 0; !(await focused()); tabs++) {
    if (tabs === TABS_TO_TOKEN) throw new Error(`#token has no focus on load nor after ${tabs} Tab presses`);
    await page.keyboard.press("Tab");
  }
  await page.keyboard.type(OPERATOR_TOKEN);
  await page.keyboard.press("Enter");
  await visible(page.locator("h1", { hasText: "Sessions" }), 'h1 "Sessions"');
}

/** Every seeded session has its row, its first cell a link to its page. */
async function sessionsList({ page, seeded }) {
  for (const key of [seeded.writerKey, seeded.notesKey, seeded.tidesKey, seeded.channelKey]) {
    const selector = `table.sessions tr[data-key=${css(key)}] > :first-child a`;
    await visible(page.locator(selector), selector);
  }
  await visible(page.locator("details.filter-box > summary"), "details.filter-box > summary");
  await shot(page, "sessions");
}

async function search({ page, seeded }) {
  await page.locator('form.search input[name="q"]').fill(SEARCH_WORD);
  await page.locator('form.search input[name="q"]').press("Enter");
  const hit = `ol.hits > li[data-key=${css(seeded.writerKey)}]`;
  await visible(page.locator(hit), hit);
  await textMatches(page.locator(`${hit} .snippet`), `${hit} .snippet`, new RegExp(SEARCH_WORD, "i"));
  await shot(page, "search");
}

async function openSession({ page, seeded }) {
  await page
    .locator(`ol.hits > li[data-key=${css(seeded.writerKey)}] a`)
    .first()
    .click();
  await visible(page.locator("h1", { hasText: "browser-check" }), 'h1 (the display key "…browser-check")');
  await visible(page.locator("#transcript article.message"), "#transcript article.message");
}

/** The probe is in the transcript as text; no script element came with it and it never ran. */
async function scriptAsText({ page }) {
  const probe = page.locator("#transcript article.message", { hasText: SCRIPT_PROBE });
  await visible(probe, `#transcript article.message with the text ${SCRIPT_PROBE}`);
  if ((await page.locator("#transcript script").count()) > 0)
    throw new Error("#transcript contains a <script>");
  if ((await page.evaluate(() => window.__pwned)) !== undefined) throw new Error("window.__pwned was set");
  await visible(
    page.locator('#transcript article.message[data-role="user"] .badge'),
    "article.message .badge",
  );
}

/** Sends a message; the reply is seen half-written in [data-reply-text], then whole in the transcript. */
async function sendAndStream({ page }) {
  const full = replyTo(SENT);
  // The contract names the field "message"; chat.send's body calls it "text": either is the one textarea.
  await page.locator("form#send textarea").fill(SENT);
  await page.locator("form#send").getByRole("button", { name: "Send" }).click();
  const partial = await page
    .waitForFunction(
      (whole) => {
        const text = document.querySelector("[data-reply-text]")?.textContent ?? "";
        if (text) window.__lastReplyText = text;
        return text !== "" && text !== whole && whole.startsWith(text) ? text : false;
      },
      full,
      { polling: 20, timeout: VISIBLE_MS },
    )
    .catch(async () => {
      const seen = await page.evaluate(() => window.__lastReplyText ?? "");
      throw new Error(
        `[data-reply-text] never showed part of the reply while it streamed (last text: ${JSON.stringify(seen)})`,
      );
    });
  if (!(await partial.jsonValue())) throw new Error("[data-reply-text] was empty");
  const reply = page.locator("#transcript article.message", { hasText: full });
  await visible(reply, `#transcript article.message with the streamed reply "${full}"`);
  await shot(page, "session");
}

/** Kills the running sub-agent from #tree (accepting the confirm) and sees its status turn killed. */
async function killSubagent({ page, seeded }) {
  const node = `#tree details[data-key=${css(seeded.childKey)}]`;
  const status = `${node} > summary .status`;
  await textMatches(page.locator(status), status, /running/i);
  const details = page.locator(node).first();
  if (!(await details.evaluate((element) => element.open))) await details.locator("> summary").click();
  page.once("dialog", (dialog) => dialog.accept());
  await details.locator("form.kill").getByRole("button", { name: "Kill" }).click();
  await textMatches(page.locator(status), status, /killed/i);
}

/** At 375 px the session page fits: nothing scrolls sideways, nothing sticks out. */
async function narrowSession({ page }) {
  await page.setViewportSize(NARROW);
  await page.reload();
  await visible(page.locator("#transcript article.message"), "#transcript article.message (at 375 px)");
  await settled(page, "the session page");
  await assertFits(page, "the session page");
  await shot(page, "session-375");
  await page.setViewportSize(DESKTOP);
}

/**
 * The stuck reply is listed with its status in section#attention, which comes first: it lists suspended
 * and failed records (the seeded one is `failed`: a channel's 4xx can never work, while `suspended`
 * needs 30 minutes of retries).
 */
async function deliveriesPage({ page, base, seeded }) {
  await page.goto(`${base}/console/deliveries`);
  await visible(page.locator("h1", { hasText: "Deliveries" }), 'h1 "Deliveries"');
  const row = `tr[data-delivery=${css(seeded.deliveryId)}]`;
  const status = `section#attention ${row} .status`;
  await textMatches(page.locator(status), status, new RegExp(seeded.deliveryStatus, "i"));
  const suspendedFirst = await page.evaluate(() => {
    const [suspended, recent] = [document.querySelector("#attention"), document.querySelector("#recent")];
    return Boolean(
      suspended && recent && suspended.compareDocumentPosition(recent) & Node.DOCUMENT_POSITION_FOLLOWING,
    );
  });
  if (!suspendedFirst) throw new Error("section#attention does not come before section#recent");
  await shot(page, "deliveries");
}

/** The storage page (SPEC §23): each agent's figures as `maintenance --dry-run` has them, each shard's size. */
async function storagePage({ page, base }) {
  await page.goto(`${base}/console/storage`);
  await visible(page.locator("h1", { hasText: "Storage" }), 'h1 "Storage"');
  await textMatches(page.locator("section[data-agent=main] .facts"), "main's facts", /Object storage\s*\d/);
  await visible(page.locator("tr[data-shard=DB] td"), "tr[data-shard=DB] td");
  await settled(page, "the storage page");
  await shot(page, "storage");
}

/**
 * The channels page lists each channel (the bridge's failed post counted), and a channel's page shows
 * the platform's own view (the world's getWebhookInfo) beside ours.
 */
async function channelsPage({ page, base }) {
  await page.goto(`${base}/console/channels`);
  await visible(page.locator("h1", { hasText: "Channels" }), 'h1 "Channels"');
  const bridge = "tr[data-channel=bridge]";
  await textMatches(
    page.locator(`${bridge} td[data-label="Failed posts"]`),
    `${bridge} failed posts`,
    /^[1-9]/,
  );
  await settled(page, "the channels page");
  await shot(page, "channels");
  await page.locator("tr[data-channel=telegram] a").click();
  const view = "#platform-view";
  await textMatches(page.locator(view), view, /pending_update_count/);
  await settled(page, "the channel page");
  await shot(page, "channel");
}

/** The receiver takes posts now; "Retry" on the stuck row ends delivered (seen by reloading). */
async function retryDelivery({ page, base, seeded, world }) {
  world.acceptDeliveries();
  // The steps before may end on another page (every page at 375 px ends on the storage page).
  await page.goto(`${base}/console/deliveries`);
  const row = `tr[data-delivery=${css(seeded.deliveryId)}]`;
  page.once("dialog", (dialog) => dialog.accept());
  const retry = page.locator(`section#attention ${row} form.retry`).getByRole("button", { name: "Retry" });
  await visible(retry, `${row} form.retry button "Retry"`);
  await retry.click();
  const deadline = Date.now() + DELIVERED_MS;
  let last = "";
  while (Date.now() < deadline) {
    await sleep(1000);
    await page.reload();
    const status = page.locator(`section#recent ${row} .status`);
    await status
      .first()
      .waitFor({ state: "visible", timeout: VISIBLE_MS })
      .catch(() => {});
    last = ((await status.count()) > 0 ? await status.first().textContent() : "(no row)") ?? "";
    if (/delivered/i.test(last)) break;
  }
  if (!/delivered/i.test(last))
    throw new Error(
      `section#recent ${row} .status is "${last.trim()}" after ${DELIVERED_MS / 1000} s, not delivered`,
    );
  if (!world.seen.channelPosts.some((post) => post.accepted))
    throw new Error("the channel webhook never received the retried post");
}

const STEPS = [
  ["sign-in form", signInForm],
  ["wrong token", wrongToken],
  ["sign in with the keyboard", keyboardSignIn],
  ["sessions list", sessionsList],
  ["search", search],
  ["open a session", openSession],
  ["script renders as text", scriptAsText],
  ["send and see the reply stream", sendAndStream],
  ["kill the sub-agent", killSubagent],
  ["patch the label", patchLabel],
  ["send as another session", sendAs],
  ["export the transcript", exportTranscript],
  ["compact the session", compact],
  ["session forms: each label with its field", formsLaidOut],
  ["favicon", faviconServed],
  ["session page at 375 px", narrowSession],
  ["busy session: send box in sight, older runs and events folded", busySession],
  ["archive and restore", archiveAndRestore],
  ["deliveries page", deliveriesPage],
  ["channels page", channelsPage],
  ["storage page", storagePage],
  ["every page at 375 px", everyPageNarrow],
  ["retry the stuck delivery", retryDelivery],
  ["filters folded by default", filtersFolded],
  ["grant sign-in", grantSignIn],
];

/** Runs every step in one tab (the token lives in its sessionStorage); answers one line. */
export async function checkConsole(browser, base, seeded, world) {
  const guard = await offlineContext(browser, { viewport: DESKTOP });
  const page = await guard.context.newPage();
  const ctx = { browser, page, base, seeded, world, guard };
  try {
    for (const [name, run] of STEPS)
      await step(name, page, async () => {
        await run(ctx);
        guard.assertClean("the console");
      });
  } finally {
    await guard.context.close();
  }
  return `/console: ${STEPS.map(([name]) => name).join(", ")}; screenshots in docs/console/`;
}
