import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { type ClientOptions, type FetchLike, SwitchboardClient } from "../../packages/client/src/index";
import { ADMIN, BASE_URL, call, deliverBatch, driveUntil, inbound, postInbound, stub, uid } from "../support";

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

/** A row of a session's delivery ledger, the fields a test hands to the dead-letter queue. */
type LedgerRow = { delivery_id: string; status: string; attempts: number; payload: string | null };

/**
 * A session's channel reply that the deliveries queue gave up on (SPEC §16): slack's fake webhook fails
 * the first posts, and the dead-letter queue's consumer suspends the record. Returns once the index shows
 * it suspended, so `GET /v1/deliveries` lists it.
 */
export async function suspendedDelivery(
  chat = `dm-${uid()}`,
): Promise<{ sessionKey: string; deliveryId: string }> {
  const posted = await postInbound(
    "slack",
    inbound({ chatId: chat, senderId: `42${chat}`, messageId: uid() }),
  );
  const { sessionKey } = posted.json as { sessionKey: string };
  const ledger = () =>
    runInDurableObject(stub(sessionKey), (_instance, state) =>
      state.storage.sql.exec<LedgerRow>("SELECT * FROM delivery").toArray(),
    );
  // Once the Queue's first attempt is reported, no report of it can come after the suspension.
  const row = await driveUntil(
    [sessionKey],
    async () => (await ledger()).find((row) => row.status === "in_progress" && row.attempts >= 1),
    "the Queue's first attempt at the reply",
  );
  const post = { ...JSON.parse(row.payload ?? "{}"), deliveryId: row.delivery_id };
  await deliverBatch(
    [{ id: `dead-${uid()}`, body: { body: post, reason: "the queue gave up" } }],
    env,
    "switchboard-deliveries-dlq",
  );
  await driveUntil(
    [sessionKey],
    async () => {
      const listed = await call<{ deliveries: { deliveryId: string; status: string }[] }>(
        "GET",
        `/v1/deliveries?sessionKey=${encodeURIComponent(sessionKey)}&status=suspended`,
        { token: ADMIN },
      );
      return listed.json.deliveries.some((record) => record.deliveryId === row.delivery_id)
        ? true
        : undefined;
    },
    "the index to show the record suspended",
  );
  return { sessionKey, deliveryId: row.delivery_id };
}
