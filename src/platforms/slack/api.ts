import { type CallOutcome, callApi, masked, retryAtAfter } from "../send";

/** Slack's Web API root (SPEC §21); a channel's `apiBaseUrl` replaces it. */
export const SLACK_API = "https://slack.com/api";

/** `ok: false` errors that pass: anything else Slack refuses (`channel_not_found`, …) is final. */
const TRANSIENT = new Set([
  "ratelimited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

/** One Web API method (`<root>/<method>`, the bot token as Bearer); Slack answers 200 with `ok` either way. */
export async function slackCall(
  root: string,
  token: string,
  method: string,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CallOutcome> {
  const url = `${root.replace(/\/+$/, "")}/${method}`;
  const answer = await callApi(
    url,
    { method: "POST", headers: { Authorization: `Bearer ${token}` }, body, ...(signal ? { signal } : {}) },
    [token],
  );
  if ("kind" in answer) return answer;
  const { status, headers, json } = answer;
  if (status === 200 && json.ok === true) return { kind: "ok", json };
  const error = typeof json.error === "string" ? json.error : `HTTP ${status}`;
  const reason = masked(`Slack ${method}: ${error}`, [token]);
  if (status === 429 || error === "ratelimited") {
    const retryAt = retryAtAfter(headers.get("Retry-After") ?? undefined);
    return { kind: "retry", reason, ...(retryAt !== undefined ? { retryAt } : {}) };
  }
  if (status >= 500 || status === 408 || TRANSIENT.has(error)) return { kind: "retry", reason };
  return { kind: "permanent", reason };
}
