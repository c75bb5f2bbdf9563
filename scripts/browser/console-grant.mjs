// The console check's grant step: a session grant (SPEC §18) signs in in its own tab and sees only its
// session, without the operator's regions, and another console page tells it so in words.
import { css, DESKTOP, shot } from "./console-kit.mjs";
import { assertFits, NARROW, settled } from "./console-layout.mjs";
import { offlineContext, textMatches, visible } from "./harness.mjs";
import { api } from "./seed.mjs";

/** The operator's regions a grant never gets (console contract, access.ts). */
const OPERATOR_REGIONS = ["#runs", "#tree", "#activity", "#session-deliveries", "#act"];

/** Signs in with the keyboard in a fresh tab; answers once the grant's own session page shows. */
async function grantLands(page, base, token, sessionKey) {
  await page.goto(`${base}/console`);
  const input = await visible(page.locator("#token"), "#token");
  await input.fill(token);
  await input.press("Enter");
  const own = `/console/sessions/${encodeURIComponent(sessionKey)}`;
  await page
    .waitForURL((url) => url.pathname === own, { timeout: 10_000 })
    .catch(() => {
      throw new Error(`the grant did not land on ${own} (at ${new URL(page.url()).pathname})`);
    });
  await visible(page.locator("h1", { hasText: "browser-check" }), 'h1 (the display key "…browser-check")');
  await visible(page.locator("#transcript article.message"), "#transcript article.message");
}

/** What the grant's page holds: its send form, no operator region, no Sessions/Deliveries in the nav. */
async function grantSeesOnlyItsSession(page) {
  await visible(page.locator("form#send"), "form#send (the grant has send)");
  await textMatches(page.locator("#who"), "#who", /grant for/);
  for (const href of ["/console/sessions", "/console/deliveries"])
    if (await page.locator(`#nav a[href=${css(href)}]`).isVisible())
      throw new Error(`the nav shows ${href} to a grant`);
  for (const region of OPERATOR_REGIONS)
    if ((await page.locator(region).count()) > 0) throw new Error(`a grant's page has ${region}`);
}

/** A grant for the writer (read, send, events) in a fresh context: its session only; the list says why not. */
export async function grantSignIn({ browser, base, seeded }) {
  const grant = await api(base, "POST", "/v1/grants", {
    sessionKey: seeded.writerKey,
    scopes: ["read", "send", "events"],
    ttlSeconds: 600,
  });
  const guard = await offlineContext(browser, { viewport: DESKTOP });
  try {
    const page = await guard.context.newPage();
    await grantLands(page, base, grant.token, seeded.writerKey);
    await grantSeesOnlyItsSession(page);
    await shot(page, "grant");
    await page.setViewportSize(NARROW);
    await settled(page, "the grant's page");
    await assertFits(page, "the grant's page");
    await page.setViewportSize(DESKTOP);
    // The list is the operator's: its fragment answers 403, which Chromium logs as a failed resource.
    await guard.expectErrors([/status of 403/], async () => {
      await page.goto(`${base}/console/sessions`);
      const said = await textMatches(
        page.locator("#view p.error[role=alert]"),
        "#view p.error[role=alert]",
        /only its own session/i,
      );
      if (/\bat \S+:\d+|Error:|stack/i.test(said)) throw new Error(`the message shows internals: ${said}`);
    });
    guard.assertClean("the console (grant)");
  } finally {
    await guard.context.close();
  }
}
