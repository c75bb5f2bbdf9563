import { type CallOutcome, callApi, masked, outcomeByStatus, retryAtAfter } from "../send";

/** Telegram's Bot API root (SPEC §21); a channel's `apiBaseUrl` replaces it. */
export const TELEGRAM_API = "https://api.telegram.org";

/**
 * One Bot API method (`<root>/bot<token>/<method>`). The token is in the URL: every reason this gives
 * is the platform's own description with the token masked, never the URL.
 */
export async function telegramCall(
  root: string,
  token: string,
  method: string,
  body: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<CallOutcome> {
  const url = `${root.replace(/\/+$/, "")}/bot${token}/${method}`;
  const answer = await callApi(url, { method: "POST", headers: {}, body, ...(signal ? { signal } : {}) }, [
    token,
  ]);
  if ("kind" in answer) return answer;
  const { status, json } = answer;
  if (status === 200 && json.ok === true) return { kind: "ok", json };
  const description = typeof json.description === "string" ? json.description : `HTTP ${status}`;
  const reason = masked(`Telegram ${method}: ${description}`, [token]);
  // Its Markdown was refused (an entity it cannot parse): the same part goes again as plain text.
  if (status === 400 && /can't parse entities|can't find end of/i.test(description))
    return { kind: "format_rejected", reason };
  const parameters = json.parameters as { retry_after?: unknown } | undefined;
  return outcomeByStatus(status, reason, retryAtAfter(parameters?.retry_after));
}
