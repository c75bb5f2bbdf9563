import { env } from "cloudflare:workers";

/** One request as test/support/fake-services-server.ts received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The raw body, byte for byte as sent (signatures are over it). */
  body: string;
  json: any;
}

/** The fake services' base URL (a miniflare binding set by vitest.config.ts). */
export function fakeServicesUrl(): string {
  if (!env.FAKE_SERVICES_URL) throw new Error("vitest.config.ts must bind FAKE_SERVICES_URL");
  return env.FAKE_SERVICES_URL;
}

/** A fresh recording: put `segment` in a fake-services path, then read what was sent with `requests()`. */
export function newRecording(): { segment: string; requests: () => Promise<RecordedRequest[]> } {
  const id = crypto.randomUUID();
  return {
    segment: `rec-${id}`,
    requests: async () => {
      const response = await fetch(`${fakeServicesUrl()}/recorded/${id}`);
      if (!response.ok) throw new Error(`fake services /recorded answered ${response.status}`);
      return (await response.json()) as RecordedRequest[];
    },
  };
}
