// @ts-check
// The console's client (README "Console"). Pages are server-rendered shells; this script keeps the
// token in the tab (sessionStorage), fetches each page's fragments with it as a bearer header, sends the
// forms marked `data-api` as JSON, and follows live streams (console-live.js). Every HTML it inserts is
// a fragment this Worker rendered with its text escaped; the Trusted Types policy below is the only way
// to insert HTML under the console's CSP.
import { follow, replyBox, sending, showRunStream, stopLive } from "./console-live.js";

const TOKEN_KEY = "switchboard-console-token";
/** Live events are gathered this long, then the live regions reload once. */
const REFRESH_DELAY_MS = 300;

/** @type {{ createPolicy(name: string, rules: { createHTML(html: string): string }): any } | undefined} */
const trustedTypes = /** @type {any} */ (globalThis).trustedTypes;
/** @type {{ createHTML(html: string): string }} */
const policy = trustedTypes?.createPolicy("console", { createHTML: (html) => html }) ?? {
  createHTML: (/** @type {string} */ html) => html,
};

/** An element of the shell, by id. @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {ParentNode} root @param {string} selector @returns {HTMLElement[]} */
const all = (root, selector) => /** @type {HTMLElement[]} */ ([...root.querySelectorAll(selector)]);

const view = byId("view");
const flash = byId("flash");

const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A request with the signed-in token. @param {string} url @param {RequestInit} [init] */
function call(url, init = {}) {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token.get() ?? ""}`);
  return fetch(url, { ...init, headers });
}

/** What an error response says, for a person: the API's message, or what to do about its status. */
async function errorText(/** @type {Response} */ response) {
  if (response.status === 401)
    return "That token was not accepted (it is wrong, revoked or expired). Paste the operator token or a valid grant token.";
  let message = "";
  try {
    const body = await response.json();
    message = body?.error?.message ?? body?.error ?? "";
  } catch {
    // Not JSON: say what status it was.
  }
  return `${message || response.statusText || "Request failed"} (HTTP ${response.status})`;
}

/** What a failed request (no answer at all) says. @param {unknown} error */
const unreachable = (error) =>
  `The server did not answer (${error instanceof Error ? error.message : error}). Check that it is running, then reload.`;

/** @param {string} text @param {"ok" | "error"} [tone] */
function say(text, tone = "ok") {
  flash.textContent = text;
  flash.dataset.tone = tone;
}

/** An error shown in place of what could not be loaded. @param {HTMLElement} target @param {string} text */
function showError(target, text) {
  const notice = document.createElement("p");
  notice.className = "error";
  notice.setAttribute("role", "alert");
  notice.textContent = text;
  target.replaceChildren(notice);
}

/** Back to the sign-in form, with why. @param {string} [reason] */
function showSignIn(reason) {
  stopLive();
  token.clear();
  byId("nav").hidden = true;
  const template = /** @type {HTMLTemplateElement} */ (byId("sign-in"));
  view.replaceChildren(template.content.cloneNode(true));
  const form = /** @type {HTMLFormElement} */ (byId("sign-in-form"));
  byId("sign-in-error").textContent = reason ?? "";
  byId("token").focus();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = String(new FormData(form).get("token") ?? "").trim();
    if (!value) return;
    token.set(value);
    void start();
  });
}

const signedOut = async (/** @type {Response} */ response) => showSignIn(await errorText(response));

/** The latest load asked of each element: an older answer arriving late is dropped. */
const latestLoad = new WeakMap();

/** Loads a fragment into `target`, then what it contains. @param {HTMLElement} target @param {string} url */
async function load(target, url) {
  const ticket = (latestLoad.get(target) ?? 0) + 1;
  latestLoad.set(target, ticket);
  let response;
  let html;
  try {
    response = await call(url);
    html = response.ok ? await response.text() : "";
  } catch (error) {
    if (latestLoad.get(target) === ticket && target.isConnected) showError(target, unreachable(error));
    return;
  }
  // A newer load of this element, or a page that replaced it, wins.
  if (latestLoad.get(target) !== ticket || !target.isConnected) return;
  if (response.status === 401) return signedOut(response);
  if (!response.ok) return showError(target, await errorText(response));
  const open = openDetails(target);
  const stick = atEnd(target);
  target.innerHTML = policy.createHTML(html);
  restoreDetails(target, open);
  if (stick) target.scrollTop = target.scrollHeight;
  wire(target);
  revealLinkedMessage(target);
}

/** How near its end a log must be scrolled to count as reading the newest (and so to follow it). */
const NEAR_END_PX = 48;

/**
 * Whether a log (`data-stick="end"`, the transcript) should show its end after this load: on its first
 * load, and when the reader was at the end; not when they scrolled up to read older messages.
 */
function atEnd(/** @type {HTMLElement} */ target) {
  if (target.dataset.stick !== "end") return false;
  const first = target.dataset.loaded === undefined;
  target.dataset.loaded = "";
  return first || target.scrollHeight - target.scrollTop - target.clientHeight < NEAR_END_PX;
}

let revealed = false;

/** A search hit links to its message (`#m-<id>`): once the transcript holding it loads, show it. */
function revealLinkedMessage(/** @type {HTMLElement} */ root) {
  if (revealed || !location.hash) return;
  let id = "";
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch {
    revealed = true;
    return;
  }
  const message = root.querySelector(`#${CSS.escape(id)}`);
  if (!message) return;
  revealed = true;
  message.classList.add("linked");
  message.scrollIntoView({ block: "center" });
}

/** Which collapsible rows are open (by their data-key), so a live refresh keeps them as they were. */
function openDetails(/** @type {HTMLElement} */ root) {
  const state = new Map();
  for (const details of all(root, "details[data-key]"))
    state.set(details.dataset.key ?? "", /** @type {HTMLDetailsElement} */ (details).open);
  return state;
}

function restoreDetails(/** @type {HTMLElement} */ root, /** @type {Map<string, boolean>} */ state) {
  for (const details of all(root, "details[data-key]")) {
    const open = state.get(details.dataset.key ?? "");
    if (open !== undefined) details.toggleAttribute("open", open);
  }
}

/** Hooks up what a fragment marks: regions to load, forms to send, downloads, live streams. */
function wire(/** @type {HTMLElement} */ root) {
  for (const region of all(root, "[data-src]")) void load(region, region.dataset.src ?? "");
  for (const form of all(root, "form[data-api]")) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void submit(/** @type {HTMLFormElement} */ (form));
    });
  }
  for (const link of all(root, "[data-download]")) {
    link.addEventListener("click", (event) => {
      event.preventDefault();
      void download(link);
    });
  }
  for (const element of all(root, "[data-live]"))
    follow(element, { call, changed: scheduleRefresh, signedOut, reason: errorText });
}

/** A form's fields as a JSON body: numbers as numbers, checkboxes as booleans, blank fields left out. */
function formBody(/** @type {HTMLFormElement} */ form) {
  /** @type {Record<string, unknown>} */
  const body = {};
  for (const element of form.elements) {
    const field = /** @type {HTMLInputElement} */ (element);
    if (!field.name || field.disabled) continue;
    if (field.type === "checkbox") body[field.name] = field.checked;
    else if (field.value === "" && field.dataset.empty === "null") body[field.name] = null;
    else if (field.value === "") continue;
    else if (field.type === "number") body[field.name] = Number(field.value);
    else if (field.dataset.json !== undefined) body[field.name] = JSON.parse(field.value);
    else body[field.name] = field.value;
  }
  return body;
}

/** A tool's answer that is an error in its body (tools answer 200 with `status: "error"`). */
function toolError(/** @type {any} */ result) {
  if (result && typeof result === "object" && ["error", "forbidden"].includes(result.status))
    return String(result.error ?? result.status);
  return undefined;
}

/** One line about a compaction's answer (`POST /v1/sessions/{key}/compact`): how much, or why not. */
function compactionLine(/** @type {any} */ result) {
  const count = `compactions so far: ${result.compactionCount}`;
  return result.compacted
    ? `Compacted: ${result.summarizedMessages} older messages summarized, the newest ${result.keptMessages} kept (${count}).`
    : `Not compacted: ${result.reason ?? "no reason given"} (${count}).`;
}

/** One line about an action's JSON answer. @param {any} result */
function summary(result) {
  if (!result || typeof result !== "object") return "Done.";
  if (typeof result.compacted === "boolean") return compactionLine(result);
  const parts = [result.status, result.reply ?? result.text].filter((part) => typeof part === "string");
  return parts.length > 0 ? parts.join(": ") : "Done.";
}

/** The request a `data-api` form makes: its JSON body, and its requester header for a tool call. */
function formRequest(/** @type {HTMLFormElement} */ form) {
  const body = formBody(form);
  if (form.dataset.stream !== undefined) body.stream = true;
  const headers = new Headers({ "Content-Type": "application/json" });
  // The requester of a tool call: fixed by the fragment (data-session) or chosen in a field.
  const fieldName = form.dataset.sessionField;
  const requester = fieldName ? body[fieldName] : form.dataset.session;
  if (fieldName) delete body[fieldName];
  if (typeof requester === "string") headers.set("X-Switchboard-Session", requester);
  const method = form.dataset.method ?? "POST";
  return {
    method,
    headers,
    ...(method === "GET" || method === "DELETE" ? {} : { body: JSON.stringify(body) }),
  };
}

/** What a form's answer means, said in the flash (and its `output`); false if it failed. */
async function reportAnswer(/** @type {HTMLFormElement} */ form, /** @type {Response} */ response) {
  const output = /** @type {HTMLElement | null} */ (form.querySelector("output, .result"));
  if (response.headers.get("Content-Type")?.startsWith("text/event-stream")) {
    const end = await showRunStream(response);
    if (end?.event === "run_failed") {
      say(`The run failed: ${end.data?.data?.error ?? "no reason given"}`, "error");
      return false;
    }
    say(
      end ? "Reply received." : "The reply stream ended early; the transcript shows the reply when it is in.",
    );
    return true;
  }
  const result = await response.json();
  const failed = toolError(result);
  if (failed) {
    say(failed, "error");
    return false;
  }
  if (output) output.textContent = summary(result);
  say(
    response.status === 202
      ? "Sent: the reply appears in the transcript."
      : (form.dataset.success ?? summary(result)),
  );
  return true;
}

/** Sends a `data-api` form; a `data-stream` form shows the reply as it streams in. */
async function submit(/** @type {HTMLFormElement} */ form) {
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  const button = /** @type {HTMLButtonElement | null} */ (
    form.querySelector("button[type=submit], button:not([type])")
  );
  if (button) button.disabled = true;
  const done = form.dataset.stream !== undefined ? sending() : () => {};
  try {
    const response = await call(form.dataset.api ?? "", formRequest(form));
    if (response.status === 401) return signedOut(response);
    if (!response.ok) return say(await errorText(response), "error");
    const ok = await reportAnswer(form, response);
    if (ok && form.dataset.reset !== undefined) form.reset();
    if (form.dataset.after === "reload") await reloadView();
    else scheduleRefresh();
  } catch (error) {
    say(`Could not send: ${error instanceof Error ? error.message : error}`, "error");
  } finally {
    done();
    if (button) button.disabled = false;
  }
}

async function download(/** @type {HTMLElement} */ link) {
  try {
    const response = await call(link.dataset.download ?? "");
    if (!response.ok) return say(await errorText(response), "error");
    const url = URL.createObjectURL(await response.blob());
    const anchor = document.createElement("a");
    anchor.href = url;
    anchor.download = link.dataset.filename ?? "transcript.jsonl";
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    say(`Saved ${anchor.download}.`);
  } catch (error) {
    say(unreachable(error), "error");
  }
}

/** Someone is typing in this region: a reload now would throw their words and focus away. */
function busy(/** @type {HTMLElement} */ region) {
  const active = document.activeElement;
  if (active && region.contains(active) && active.matches("input, textarea, select")) return true;
  return all(region, "textarea, input:not([type=hidden])").some(
    (field) =>
      /** @type {HTMLInputElement} */ (field).value !== /** @type {HTMLInputElement} */ (field).defaultValue,
  );
}

let refreshTimer = 0;

/** Reloads a live region; the reply box goes once the transcript shows the reply it streamed. */
function refresh(/** @type {HTMLElement} */ region) {
  delete region.dataset.stale;
  void load(region, region.dataset.src ?? "").then(() => {
    const box = replyBox();
    if (
      box?.dataset.done &&
      region.dataset.refresh === "transcript" &&
      region.querySelector("[data-newest]")
    ) {
      box.hidden = true;
      delete box.dataset.done;
    }
  });
}

/**
 * Reloads the live regions soon: once for a burst of events (at most REFRESH_DELAY_MS late). A region
 * someone is typing in is only marked stale, and reloads once they leave it or send its form.
 */
function scheduleRefresh() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => {
    refreshTimer = 0;
    for (const region of all(document, "[data-src][data-refresh]")) {
      if (busy(region)) region.dataset.stale = "true";
      else refresh(region);
    }
  }, REFRESH_DELAY_MS);
}

// Leaving a stale region (focus moves on, or its form was sent and reset) lets it catch up.
for (const type of ["focusout", "reset"])
  document.addEventListener(type, () => {
    setTimeout(() => {
      for (const region of all(document, "[data-src][data-stale]")) if (!busy(region)) refresh(region);
    });
  });

async function reloadView() {
  stopLive();
  await load(view, view.dataset.fragment ?? "");
}

/** Signs in with the stored token (or asks for one), then shows the page. */
async function start() {
  if (!token.get()) return showSignIn();
  let response;
  try {
    response = await call("/console/fragments/whoami");
  } catch (error) {
    return showError(view, unreachable(error));
  }
  // Only a refused token is forgotten; a server error keeps it for the next try.
  if (response.status === 401 || response.status === 403) return signedOut(response);
  if (!response.ok) return showError(view, `${await errorText(response)} Reload to try again.`);
  const who = await response.json();
  const nav = byId("nav");
  nav.hidden = false;
  for (const link of all(nav, "[data-operator]")) link.hidden = who.kind !== "operator";
  byId("who").textContent = who.kind === "operator" ? "operator" : `grant for ${who.displayKey}`;
  // A grant signing in at the console's front page lands on its session; on any other page it is told
  // (the fragment's 403) that it shows only its own session, rather than being moved without a word.
  if (who.kind === "grant" && /^\/console\/?$/.test(location.pathname))
    return location.replace(`/console/sessions/${encodeURIComponent(who.sessionKey)}`);
  await reloadView();
}

byId("sign-out").addEventListener("click", () => {
  showSignIn("Signed out.");
});

void start();
