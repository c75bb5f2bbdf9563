import { type CallOutcome, callApi, masked, outcomeByStatus, retryAtAfter } from "../send";

/** Discord's REST API root (SPEC §21); a channel's `apiBaseUrl` replaces it. */
export const DISCORD_API = "https://discord.com/api/v10";

/**
 * One REST call. `auth` is the bot token (`Authorization: Bot …`), or none for an interaction's webhook,
 * whose token is in the path (`secrets` masks it in every reason).
 */
export async function discordCall(
  root: string,
  method: "POST" | "PATCH" | "DELETE",
  path: string,
  body: Record<string, unknown>,
  auth: { botToken?: string; secrets: readonly string[]; signal?: AbortSignal },
): Promise<CallOutcome> {
  const url = `${root.replace(/\/+$/, "")}${path}`;
  const headers: Record<string, string> = auth.botToken ? { Authorization: `Bot ${auth.botToken}` } : {};
  const answer = await callApi(
    url,
    {
      method,
      headers,
      ...(method !== "DELETE" ? { body } : {}),
      ...(auth.signal ? { signal: auth.signal } : {}),
    },
    auth.secrets,
  );
  if ("kind" in answer) return answer;
  const { status, json } = answer;
  if (status >= 200 && status < 300) return { kind: "ok", json };
  const what = typeof json.message === "string" ? json.message : `HTTP ${status}`;
  const route = path.startsWith("/webhooks/") ? "interaction follow-up" : path.replace(/\/\d+/g, "/{id}");
  const reason = masked(`Discord ${method} ${route}: ${what} (HTTP ${status})`, auth.secrets);
  return outcomeByStatus(status, reason, retryAtAfter(json.retry_after));
}
