// The console check's steps for the operator's actions on a session (the "Act on this session" region):
// patch the label, sessions_send as another session, export the transcript, compact, archive and
// restore. Each checks what the page shows and, where the page could be wrong in agreement with itself,
// the API.
import { readFileSync } from "node:fs";
import { css, untilAfterReload } from "./console-kit.mjs";
import { textMatches, VISIBLE_MS, visible } from "./harness.mjs";
import { api } from "./seed.mjs";

const LABEL = "Pelican desk";
/** The session that sends as another (the demo's agents may all send to each other: visibility "all"). */
const SENDER = "agent:main:main";
const ASKED = "Could you count the pelicans on the pier?";
/** sessions_send waits for the writer's reply; the form asks for 30 s, the page gets a little more. */
const SEND_AS_MS = 35_000;

/** A new label saved from form#patch shows in the header after the reload, and the REST row has it. */
export async function patchLabel({ page, base, seeded }) {
  const form = await visible(page.locator("form#patch"), "form#patch");
  await form.locator('input[name="label"]').fill(LABEL);
  await form.getByRole("button", { name: "Save settings" }).click();
  await textMatches(page.locator(".session-head .subtitle"), ".session-head .subtitle", new RegExp(LABEL));
  const row = await api(base, "GET", `/v1/sessions/${encodeURIComponent(seeded.writerKey)}`);
  if (row.label !== LABEL)
    throw new Error(`GET /v1/sessions/{key} has label ${JSON.stringify(row.label)}, not ${LABEL}`);
}

/** form#send-as from main to the writer, waiting: its output says ok, the transcript shows an agent message. */
export async function sendAs({ page }) {
  const form = await visible(page.locator("form#send-as"), "form#send-as");
  await form.locator('input[name="from"]').fill(SENDER);
  await form.locator('textarea[name="message"]').fill(ASKED);
  await form.getByRole("button", { name: "Send as that session" }).click();
  await textMatches(form.locator("output"), "form#send-as output", /^ok: \S/, SEND_AS_MS);
  const message = '#transcript article.message[data-provenance="agent"]';
  const arrived = page.locator(message, { hasText: ASKED });
  await visible(arrived, `${message} with the text "${ASKED}"`);
  await textMatches(arrived.locator(".badge"), `${message} .badge`, /^agent$/);
}

/** Every `id` anywhere in a parsed JSON value. */
function idsIn(value, into = new Set()) {
  if (Array.isArray(value)) for (const item of value) idsIn(item, into);
  else if (value && typeof value === "object")
    for (const [name, item] of Object.entries(value)) {
      if (name === "id" && typeof item === "string") into.add(item);
      else idsIn(item, into);
    }
  return into;
}

/** The export link saves a .jsonl file: every line JSON, the seeded messages among them. */
export async function exportTranscript({ page, seeded }) {
  const link = await visible(page.locator("#act [data-download]"), "#act [data-download]");
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: VISIBLE_MS }),
    link.click(),
  ]);
  if (!download.suggestedFilename().endsWith(".jsonl"))
    throw new Error(`the export was saved as ${download.suggestedFilename()}, not a .jsonl file`);
  const lines = readFileSync(await download.path(), "utf8")
    .split("\n")
    .filter(Boolean);
  const ids = new Set();
  lines.forEach((line, index) => {
    try {
      idsIn(JSON.parse(line), ids);
    } catch {
      throw new Error(`line ${index + 1} of the export is not JSON: ${line.slice(0, 120)}`);
    }
  });
  const missing = seeded.writerMessageIds.filter((id) => !ids.has(id));
  if (missing.length > 0)
    throw new Error(`the export (${lines.length} lines) lacks messages ${missing.join(", ")}`);
}

/** The header's "Compactions" fact. */
const compactionsFact = (page) =>
  page.locator(".session-head .facts div", { hasText: "Compactions" }).locator("dd");

/** The number the "Compactions" fact shows. */
async function compactionsShown(page) {
  return Number(await (await visible(compactionsFact(page), '.facts "Compactions"')).textContent());
}

/**
 * "Compact now" on the writer's page (its turns by now: the seed's, the streamed reply, send-as): the
 * flash says how much was summarized, the page reloads with the count one higher, as the REST row has it.
 */
export async function compact({ page, base, seeded }) {
  const before = await compactionsShown(page);
  const button = page.locator("form#compact").getByRole("button", { name: "Compact now" });
  await (await visible(button, 'form#compact button "Compact now"')).click();
  await textMatches(page.locator("#flash"), "#flash", /^Compacted: \d+ older messages summarized/);
  await textMatches(compactionsFact(page), '.facts "Compactions"', new RegExp(`^${before + 1}$`));
  const row = await api(base, "GET", `/v1/sessions/${encodeURIComponent(seeded.writerKey)}`);
  if (row.compactionCount !== before + 1)
    throw new Error(`GET /v1/sessions/{key} has compactionCount ${row.compactionCount}, not ${before + 1}`);
}

/** Waits until the sessions list at `query` has (or no longer has) the session's row. */
async function listed(page, base, query, key, present) {
  const row = `table.sessions tr[data-key=${css(key)}]`;
  const url = `${base}/console/sessions${query}`;
  await untilAfterReload(page, url, `${row} ${present ? "never showed" : "stayed"} on ${url}`, async () => {
    await visible(page.locator("h1", { hasText: "Sessions" }), `h1 "Sessions" on ${url}`);
    return (await page.locator(row).count()) > 0 === present;
  });
}

/** The notes session (no other step needs it) archived: gone from the list, under archived=true; restored. */
export async function archiveAndRestore({ page, base, seeded }) {
  const sessionPage = `${base}/console/sessions/${encodeURIComponent(seeded.notesKey)}`;
  await page.goto(sessionPage);
  await (
    await visible(page.locator("form#archive button", { hasText: "Archive" }), "form#archive button")
  ).click();
  await textMatches(page.locator(".session-head .notice"), ".session-head .notice", /archived/i);
  await listed(page, base, "", seeded.notesKey, false);
  await listed(page, base, "?archived=true", seeded.notesKey, true);
  await page.goto(sessionPage);
  await (
    await visible(page.locator("form#archive button", { hasText: "Restore" }), "form#archive button")
  ).click();
  await visible(page.locator("form#archive button", { hasText: "Archive" }), 'form#archive button "Archive"');
  if ((await page.locator(".session-head .notice").count()) > 0)
    throw new Error("the archived notice stayed after Restore");
  await listed(page, base, "", seeded.notesKey, true);
}
