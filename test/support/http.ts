import { exports } from "cloudflare:workers";

/** The origin tests reach the Worker at (any origin does: the fetch goes straight to its handler). */
export const BASE_URL = "http://switchboard.test";

/** A response as tests read it: the status, the raw text, and the text parsed as JSON (undefined if it is not). */
export interface HttpResult<Body = any> {
  status: number;
  json: Body;
  text: string;
}

/** Reads a Worker response into an `HttpResult`. */
export async function readResult(response: Response): Promise<HttpResult> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/** A request to the Worker over its real HTTP surface, with a bearer token and a JSON (or raw string) body. */
export async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await exports.default.fetch(`${BASE_URL}${path}`, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
  });
  return readResult(response);
}

/** The REST path of a session, with its key URL-encoded. */
export function sessionPath(key: string, suffix = ""): string {
  return `/v1/sessions/${encodeURIComponent(key)}${suffix}`;
}
