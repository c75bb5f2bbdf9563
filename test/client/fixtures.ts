import { exports } from "cloudflare:workers";
import { type ClientOptions, type FetchLike, SwitchboardClient } from "../../src/client";
import { BASE_URL } from "../support";

/** One request as the Worker received it from the client. */
export interface Recorded {
  method: string;
  path: string;
  /** The path as sent, still URL-encoded. */
  rawPath: string;
  headers: Headers;
  body: string | undefined;
}

/** The Worker's own fetch, recording each request (the client is tested against the real routes). */
export function recordingFetch(): { fetch: FetchLike; requests: Recorded[] } {
  const requests: Recorded[] = [];
  const fetch: FetchLike = (input, init) => {
    const url = new URL(input);
    requests.push({
      method: init.method ?? "GET",
      path: decodeURIComponent(url.pathname),
      rawPath: url.pathname,
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? init.body : undefined,
    });
    return exports.default.fetch(input, init);
  };
  return { fetch, requests };
}

/** A client of the Worker under test, plus what it sent. */
export function testClient(options: ClientOptions = {}): { client: SwitchboardClient; requests: Recorded[] } {
  const { fetch, requests } = recordingFetch();
  return {
    client: new SwitchboardClient({ baseUrl: BASE_URL, fetch, ...options }),
    requests,
  };
}

/** The last request's method and (decoded) path, e.g. `POST /v1/tools/sessions_list`. */
export function lastRoute(requests: Recorded[]): string {
  const last = requests.at(-1);
  return last ? `${last.method} ${last.path}` : "(none)";
}
