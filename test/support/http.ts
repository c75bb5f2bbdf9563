import { exports } from "cloudflare:workers";

/** The origin tests reach the Worker at (the fetch goes straight to its handler, whatever the host). */
export const BASE_URL = "http://switchboard.test";

/**
 * A response as tests read it: the status, the raw text, and the text parsed as JSON (undefined if it
 * is not). `Body` is what the caller expects the JSON to be (wire.ts); its assertions check it.
 */
export interface HttpResult<Body = unknown> {
  status: number;
  json: Body;
  text: string;
}

/** Reads a Worker response into an `HttpResult`. */
export async function readResult<Body = unknown>(response: Response): Promise<HttpResult<Body>> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json: json as Body, text };
}

/** A request to the Worker over its real HTTP surface, with a bearer token and a JSON (or raw string) body. */
export async function call<Body = unknown>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult<Body>> {
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
  return readResult<Body>(response);
}

/** The REST path of a session, with its key URL-encoded. */
export function sessionPath(key: string, suffix = ""): string {
  return `/v1/sessions/${encodeURIComponent(key)}${suffix}`;
}
