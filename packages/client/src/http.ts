import { BOOKMARK_HEADER, type Bookmarks } from "./bookmarks.ts";
import { errorFromResponse, networkError, SwitchboardError, timeoutError } from "./errors.ts";

/** Anything shaped like the global `fetch` (tests pass the Worker's own `fetch`). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where Switchboard answers; default `http://127.0.0.1:8787` (`npm start`). */
  baseUrl?: string;
  /** Bearer token: operator, agent or run token. */
  token?: string;
  /** The requester session for tool calls (`X-Switchboard-Session`); operators must name one. */
  session?: string;
  /** The requester's agent, for a legacy (short) requester key (`X-Switchboard-Agent`). */
  agent?: string;
  /** Replaces the global `fetch`. */
  fetch?: FetchLike;
  /** Per request, in ms, on top of any server-side wait the call asks for; default 30 000. */
  timeoutMs?: number;
  /**
   * The D1 bookmarks sent back with every call (`Switchboard-Bookmark`); the client keeps its own, which
   * `with()` shares. Pass one to share it between clients (the same caller with other tokens).
   */
  bookmarks?: Bookmarks;
}

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RequestSpec {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  /** How long the server may wait on purpose (sessions_send, run wait): added to the timeout. */
  serverWaitMs?: number;
  /** Read the answer as text instead of JSON (the JSONL export). */
  as?: "json" | "text";
  /** Names the call in error messages, e.g. `sessions_list`. */
  what: string;
}

/** The service's address without a trailing slash. */
export const baseUrlOf = (options: ClientOptions): string =>
  (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");

export const fetchOf = (options: ClientOptions): FetchLike =>
  options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));

/** The headers of every call: what it accepts, the credentials and requester, the body's type. */
export function requestHeaders(
  options: ClientOptions,
  accept: string,
  hasBody: boolean,
): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.session) headers["X-Switchboard-Session"] = options.session;
  if (options.agent) headers["X-Switchboard-Agent"] = options.agent;
  if (hasBody) headers["Content-Type"] = "application/json";
  const bookmarks = options.bookmarks?.header;
  if (bookmarks) headers[BOOKMARK_HEADER] = bookmarks;
  return headers;
}

const isTimeout = (error: unknown) =>
  error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

/** One HTTP exchange with Switchboard: headers, timeout, and errors mapped to `SwitchboardError`s. */
export async function request<T>(options: ClientOptions, spec: RequestSpec): Promise<T> {
  const baseUrl = baseUrlOf(options);
  const headers = requestHeaders(options, "application/json", spec.body !== undefined);
  const timeoutMs = (options.timeoutMs ?? DEFAULT_TIMEOUT_MS) + (spec.serverWaitMs ?? 0);
  const doFetch = fetchOf(options);
  let response: Response;
  try {
    response = await doFetch(`${baseUrl}${spec.path}`, {
      method: spec.method,
      headers,
      ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw isTimeout(error) ? timeoutError(spec.what, timeoutMs, error) : networkError(baseUrl, error);
  }
  options.bookmarks?.update(response.headers.get(BOOKMARK_HEADER));
  let text: string;
  try {
    // Decoded by hand: workerd warns when .text() reads a body whose type is not text (the JSONL export).
    text = new TextDecoder().decode(await response.arrayBuffer());
  } catch (error) {
    throw isTimeout(error) ? timeoutError(spec.what, timeoutMs, error) : networkError(baseUrl, error);
  }
  if (!response.ok) throw errorFromResponse(response.status, parseJson(text), spec.what);
  if (spec.as === "text") return text as T;
  const json = parseJson(text);
  if (json === undefined) throw notJson(spec.what, response.status, text);
  return json as T;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function notJson(what: string, status: number, text: string): SwitchboardError {
  return new SwitchboardError(
    `${what}: HTTP ${status} answered with something that is not JSON; is the URL a Switchboard server?`,
    { kind: "http", code: "not_json", status, serverMessage: text.slice(0, 200) },
  );
}
