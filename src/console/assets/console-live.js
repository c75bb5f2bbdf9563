// @ts-check
// The console's live half: server-sent events read over fetch (EventSource cannot send the bearer
// header), the session follower with its reconnects, and a run's reply shown as it streams in.

const RECONNECT_MS = [1000, 2000, 5000, 10000];

/** @typedef {{ id?: string, event: string, data: any }} StreamEvent */
/** @typedef {(url: string, init?: RequestInit) => Promise<Response>} Call */

/** Streams under way; a new view or signing out stops them all (`stopLive`). */
const live = new Set();

/** Stops every stream of the page that is going away. */
export function stopLive() {
  for (const controller of live) controller.abort();
  live.clear();
}

/** One stream's abort handle, forgotten when it ends. */
function track() {
  const controller = new AbortController();
  live.add(controller);
  controller.signal.addEventListener("abort", () => live.delete(controller));
  return controller;
}

/** One SSE frame's fields, its data parsed as JSON when it is. @param {string} frame */
function parseFrame(frame) {
  /** @type {StreamEvent} */
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
  if (parsed.data === "") return undefined;
  try {
    parsed.data = JSON.parse(parsed.data);
  } catch {
    // Plain text data stays text.
  }
  return parsed;
}

/**
 * The events of a `text/event-stream` response as they arrive.
 * @param {Response} response
 * @returns {AsyncGenerator<StreamEvent>}
 */
export async function* events(response) {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const parsed = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        if (parsed) yield parsed;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Runs whose stream is shown already, so the follower and a send form never show one twice. */
const shownRuns = new Set();

/** Send forms whose reply stream is under way: the follower leaves the reply box to them. */
let sendsStreaming = 0;
/** The stream the follower shows in the reply box, if any: a send takes the box over from it. */
/** @type {AbortController | undefined} */
let following;

/** A send form's stream begins; call what it answers when the stream is over. */
export function sending() {
  following?.abort();
  sendsStreaming++;
  let over = false;
  return () => {
    if (!over) sendsStreaming--;
    over = true;
  };
}

/** The page's live reply box (outside the regions a refresh replaces), if it has one. */
export const replyBox = () => /** @type {HTMLElement | null} */ (document.querySelector("[data-live-reply]"));

/**
 * Shows a run stream in the reply box as it arrives: each delta appended as text, then how it ended.
 * Answers the terminal event (undefined if the stream ended without one).
 * @param {Response} response
 * @returns {Promise<StreamEvent | undefined>}
 */
export async function showRunStream(response) {
  const box = replyBox();
  const text = box?.querySelector("[data-reply-text]");
  const state = box?.querySelector("[data-reply-state]");
  if (box) {
    box.hidden = false;
    delete box.dataset.done;
  }
  if (text) text.textContent = "";
  /** @type {StreamEvent | undefined} */
  let last;
  for await (const event of events(response)) {
    // A run event carries the run (`data.runId`) and its own payload (`data.data`).
    if (event.data?.runId) shownRuns.add(event.data.runId);
    const payload = event.data?.data ?? {};
    // A retried attempt, or text the safe view took back, restarts the reply (`reset`).
    if (event.event === "delta" && text)
      text.textContent = (payload.reset ? "" : text.textContent) + (payload.text ?? "");
    if (state && (event.event === "run_queued" || event.event === "run_started"))
      state.textContent = event.event === "run_queued" ? "queued…" : "replying…";
    if (event.event === "run_completed" || event.event === "run_failed") {
      last = event;
      if (state)
        state.textContent = event.event === "run_completed" ? "done" : `failed: ${payload.error ?? ""}`;
      if (box) box.dataset.done = "true";
    }
  }
  return last;
}

/**
 * Shows a run's reply as it streams, unless it is shown already; the live regions reload once it ends.
 * @param {Call} call @param {string} runId @param {() => void} changed
 */
async function followRun(call, runId, changed) {
  if (shownRuns.has(runId) || sendsStreaming > 0) return;
  shownRuns.add(runId);
  following?.abort();
  const controller = track();
  following = controller;
  try {
    const response = await call(`/v1/runs/${encodeURIComponent(runId)}/events?after=0`, {
      signal: controller.signal,
    });
    if (response.ok) await showRunStream(response);
  } catch {
    // Aborted with its page, or the connection dropped: the transcript shows the reply once it is in.
  } finally {
    controller.abort();
    if (following === controller) following = undefined;
    changed();
  }
}

/**
 * Follows a session's event stream (`data-live`): calls `changed` for each event, shows a reply as it
 * streams when one of the session's own runs starts, and reconnects with Last-Event-ID when the stream
 * ends (it lasts at most 5 minutes) or drops. It stops for good when its element leaves the page, when
 * the session is gone or out of reach (404, 403), or on 401 (`signedOut`).
 * @param {HTMLElement} element
 * @param {{ call: Call, changed: () => void, signedOut: (response: Response) => void, reason: (response: Response) => Promise<string> }} hooks
 */
export function follow(element, hooks) {
  const url = element.dataset.live ?? "";
  const root = element.dataset.liveRoot;
  const status = /** @type {HTMLElement | null} */ (element.querySelector("[data-live-status]"));
  const show = (/** @type {string} */ text) => {
    if (status) status.textContent = text;
  };
  const controller = track();
  let lastId = "";
  let failures = 0;
  const run = async () => {
    while (element.isConnected && !controller.signal.aborted) {
      try {
        /** @type {Record<string, string>} */
        const headers = lastId ? { "Last-Event-ID": lastId } : {};
        const response = await hooks.call(url, { headers, signal: controller.signal });
        if (response.status === 401) return hooks.signedOut(response);
        if (response.status === 403 || response.status === 404)
          return show(`Not live: ${await hooks.reason(response)}`);
        // A cursor beyond a re-created session's events: start again from now.
        if (response.status === 400) lastId = "";
        if (!response.ok) throw new Error(await hooks.reason(response));
        show("Live");
        failures = 0;
        for await (const event of events(response)) {
          if (!element.isConnected) return;
          if (event.id) lastId = event.id;
          const own = !event.data?.sessionKey || event.data.sessionKey === root;
          if (event.event === "run_started" && own && event.data?.runId)
            void followRun(hooks.call, event.data.runId, hooks.changed);
          hooks.changed();
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        show(`Reconnecting (${error instanceof Error ? error.message : error})`);
      }
      const wait = RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)];
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  void run().finally(() => controller.abort());
}
