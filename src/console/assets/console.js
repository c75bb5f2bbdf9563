// @ts-check
// The console's client (README "Console"). Pages are server-rendered shells; this script keeps the
// token in the tab (sessionStorage), fetches each page's fragments with it as a bearer header, sends the
// forms marked `data-api` as JSON, and follows live streams by reading SSE over fetch (EventSource cannot
// send a header). Every HTML it inserts is a fragment this Worker rendered with its text escaped; the
// Trusted Types policy below is the only way to insert HTML under the console's CSP.

const TOKEN_KEY = "switchboard-console-token";
const REFRESH_DELAY_MS = 300;
const RECONNECT_MS = [1000, 2000, 5000, 10000];

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

/** @param {string} text @param {"ok" | "error"} [tone] */
function say(text, tone = "ok") {
  flash.textContent = text;
  flash.dataset.tone = tone;
}

/** Back to the sign-in form, with why. @param {string} [reason] */
function showSignIn(reason) {
  token.clear();
  byId("nav").hidden = true;
  const template = /** @type {HTMLTemplateElement} */ (byId("sign-in"));
  view.replaceChildren(template.content.cloneNode(true));
  const form = /** @type {HTMLFormElement} */ (byId("sign-in-form"));
  const error = byId("sign-in-error");
  error.textContent = reason ?? "";
  byId("token").focus();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const value = String(new FormData(form).get("token") ?? "").trim();
    if (!value) return;
    token.set(value);
    void start();
  });
}

/** Loads a fragment into `target`, then what it contains. @param {HTMLElement} target @param {string} url */
async function load(target, url) {
  const response = await call(url);
  if (response.status === 401) return showSignIn(await errorText(response));
  if (!response.ok) {
    const notice = document.createElement("p");
    notice.className = "error";
    notice.setAttribute("role", "alert");
    notice.textContent = await errorText(response);
    target.replaceChildren(notice);
    return;
  }
  const open = openDetails(target);
  target.innerHTML = policy.createHTML(await response.text());
  restoreDetails(target, open);
  wire(target);
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
  for (const live of all(root, "[data-live]")) follow(live);
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

/** Sends a `data-api` form; a `data-stream` form shows the reply as it streams in. */
async function submit(/** @type {HTMLFormElement} */ form) {
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  const output = /** @type {HTMLElement | null} */ (form.querySelector("output, .result"));
  const button = /** @type {HTMLButtonElement | null} */ (
    form.querySelector("button[type=submit], button:not([type])")
  );
  if (button) button.disabled = true;
  const streams = form.dataset.stream !== undefined;
  if (streams) sendsStreaming++;
  try {
    const body = formBody(form);
    if (streams) body.stream = true;
    const headers = new Headers({ "Content-Type": "application/json" });
    // The requester of a tool call: fixed by the fragment (data-session) or chosen in a field.
    const fieldName = form.dataset.sessionField;
    const requester = fieldName ? body[fieldName] : form.dataset.session;
    if (fieldName) delete body[fieldName];
    if (typeof requester === "string") headers.set("X-Switchboard-Session", requester);
    const method = form.dataset.method ?? "POST";
    const response = await call(form.dataset.api ?? "", {
      method,
      headers,
      ...(method === "GET" || method === "DELETE" ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 401) return showSignIn(await errorText(response));
    if (!response.ok) return say(await errorText(response), "error");
    if (response.headers.get("Content-Type")?.startsWith("text/event-stream")) {
      await showRunStream(response, liveReply());
      say(form.dataset.success ?? "Done.");
    } else {
      const result = await response.json();
      const failed = toolError(result);
      if (failed) return say(failed, "error");
      if (output) output.textContent = summary(result);
      say(form.dataset.success ?? summary(result));
    }
    if (form.dataset.reset !== undefined) form.reset();
    if (form.dataset.after === "reload") await reloadView();
    else scheduleRefresh();
  } catch (error) {
    say(`Could not send: ${error instanceof Error ? error.message : error}`, "error");
  } finally {
    if (streams) sendsStreaming--;
    if (button) button.disabled = false;
  }
}

/** One line about an action's JSON answer. @param {any} result */
function summary(result) {
  if (!result || typeof result !== "object") return "Done.";
  const parts = [result.status, result.reply ?? result.text].filter((part) => typeof part === "string");
  return parts.length > 0 ? parts.join(": ") : "Done.";
}

async function download(/** @type {HTMLElement} */ link) {
  const response = await call(link.dataset.download ?? "");
  if (!response.ok) return say(await errorText(response), "error");
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement("a");
  anchor.href = url;
  anchor.download = link.dataset.filename ?? "transcript.jsonl";
  anchor.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  say(`Saved ${anchor.download}.`);
}

/**
 * Server-sent events from a fetch response, as `{ id, event, data }`.
 * @param {Response} response
 * @returns {AsyncGenerator<{ id?: string, event: string, data: any }>}
 */
async function* events(response) {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      /** @type {{ id?: string, event: string, data: any }} */
      const parsed = { event: "message", data: "" };
      for (const line of frame.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") parsed.id = text;
        else if (field === "event") parsed.event = text;
        else if (field === "data") parsed.data += parsed.data ? `\n${text}` : text;
      }
      if (parsed.data === "") continue;
      try {
        parsed.data = JSON.parse(parsed.data);
      } catch {
        // Plain text data stays text.
      }
      yield parsed;
    }
  }
}

/** The live reply box of the session page (outside the regions a refresh replaces). */
function liveReply() {
  return /** @type {HTMLElement | null} */ (document.querySelector("[data-live-reply]"));
}

/** Runs whose stream is already shown, so the session follower and a send form never show one twice. */
const shownRuns = new Set();
/**
 * Send forms whose reply is streaming into the box: their run id is known only from the stream's first
 * event, which the session follower's `run_started` can beat, so the follower leaves the box to them.
 */
let sendsStreaming = 0;

/**
 * Shows a run stream in `box` as it arrives: each delta appended as text, then the final state.
 * @param {Response} response @param {HTMLElement | null} box
 */
async function showRunStream(response, box) {
  const text = box?.querySelector("[data-reply-text]");
  const state = box?.querySelector("[data-reply-state]");
  if (box) box.hidden = false;
  if (text) text.textContent = "";
  for await (const event of events(response)) {
    if (event.data?.runId) shownRuns.add(event.data.runId);
    // A run stream item carries its payload in `data` (`{ text }`; `reset` starts the text over).
    const item = event.data?.data;
    if (event.event === "delta" && text)
      text.textContent = (item?.reset ? "" : text.textContent) + (item?.text ?? "");
    if (state && (event.event === "run_queued" || event.event === "run_started"))
      state.textContent = event.event === "run_queued" ? "queued…" : "replying…";
    if (event.event === "run_completed" || event.event === "run_failed") {
      if (state)
        state.textContent = event.event === "run_completed" ? "done" : `failed: ${item?.error ?? ""}`;
      if (box) box.dataset.done = "true";
    }
  }
  scheduleRefresh();
}

async function followRun(/** @type {string} */ runId) {
  if (shownRuns.has(runId) || sendsStreaming > 0) return;
  shownRuns.add(runId);
  const response = await call(`/v1/runs/${encodeURIComponent(runId)}/events?after=0`);
  if (response.ok) await showRunStream(response, liveReply());
}

/**
 * Follows a session's event stream (`data-live`): refreshes the page's live regions as events commit,
 * and shows a reply as it streams when one of the session's own runs starts. Reconnects with
 * Last-Event-ID when the stream ends (it lasts at most 5 minutes) or fails.
 */
function follow(/** @type {HTMLElement} */ element) {
  const url = element.dataset.live ?? "";
  const root = element.dataset.liveRoot;
  let lastId = "";
  let failures = 0;
  const status = /** @type {HTMLElement | null} */ (element.querySelector("[data-live-status]"));
  const run = async () => {
    while (element.isConnected) {
      try {
        const response = await call(url, { headers: lastId ? { "Last-Event-ID": lastId } : {} });
        if (response.status === 401) return showSignIn(await errorText(response));
        if (!response.ok) throw new Error(await errorText(response));
        if (status) status.textContent = "Live";
        failures = 0;
        for await (const event of events(response)) {
          if (event.id) lastId = event.id;
          const own = !event.data?.sessionKey || event.data.sessionKey === root;
          if (event.event === "run_started" && own && event.data?.runId) void followRun(event.data.runId);
          scheduleRefresh();
        }
      } catch (error) {
        if (status) status.textContent = `Reconnecting (${error instanceof Error ? error.message : error})`;
      }
      await new Promise((resolve) =>
        setTimeout(resolve, RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]),
      );
    }
  };
  void run();
}

let refreshTimer = 0;

/** Reloads the live regions soon, once for a burst of events. */
function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => {
    for (const element of all(document, "[data-src][data-refresh]")) {
      void load(element, element.dataset.src ?? "").then(() => {
        const box = liveReply();
        if (box?.dataset.done && element.dataset.refresh === "transcript") {
          box.hidden = true;
          delete box.dataset.done;
        }
      });
    }
  }, REFRESH_DELAY_MS);
}

async function reloadView() {
  await load(view, view.dataset.fragment ?? "");
}

/** Signs in with the stored token (or asks for one), then shows the page. */
async function start() {
  if (!token.get()) return showSignIn();
  const response = await call("/console/fragments/whoami");
  if (!response.ok) return showSignIn(await errorText(response));
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
