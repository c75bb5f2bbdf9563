import { exports } from "cloudflare:workers";

export const ADMIN = "test-admin-token";
export const AGENT_TOKENS = {
  main: "test-main-token",
  research: "test-research-token",
  ops: "test-ops-token",
} as const;

/** A request to the Worker over its real HTTP surface. */
/** Response JSON is untyped on purpose: tests assert on the wire shape itself. */
export async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: any; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await exports.default.fetch(`http://switchboard.test${path}`, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}
