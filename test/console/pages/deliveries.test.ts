import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliveryIndexUpsert } from "../../../src/index-db/deliveries";
import { ADMIN, call, deliverBatch, driveUntil, inbound, postInbound, stub, uid } from "../../support";
import { ESCAPED, fragment, SCRIPT } from "../../support/console";
import { shardOf } from "../../support/shards";

const enc = encodeURIComponent;

/** A session made by a signed inbound slack message; its reply's post fails (the fake answers 500). */
async function suspendedReply(reason: string): Promise<{ sessionKey: string; deliveryId: string }> {
  const u = uid();
  const posted = await postInbound(
    "slack",
    inbound({ chatId: `dm-${u}`, senderId: `42${u}`, messageId: `m-${u}` }),
  );
  expect(posted.status, posted.text).toBe(202);
  const { sessionKey } = posted.json as { sessionKey: string };
  const ledger = () =>
    runInDurableObject(stub(sessionKey), (_instance, state) =>
      state.storage.sql
        .exec<{ delivery_id: string; payload: string | null; attempts: number }>(
          "SELECT delivery_id, payload, attempts FROM delivery",
        )
        .toArray(),
    );
  const [first] = await driveUntil(
    [sessionKey],
    async () => {
      const rows = await ledger();
      return rows[0]?.attempts === 1 ? rows : undefined;
    },
    "the reply's first post to be reported",
  );
  const deliveryId = first?.delivery_id ?? "";
  // The Queue gives up: its dead-letter consumer suspends the record.
  const message = { ...JSON.parse(first?.payload ?? "{}"), deliveryId };
  await deliverBatch(
    [{ id: `dead-${u}`, body: { body: message, reason } }],
    env,
    "switchboard-deliveries-dlq",
  );
  await driveUntil(
    [sessionKey],
    async () => {
      const row = await shardOf(sessionKey)
        .prepare("SELECT status FROM delivery_index WHERE delivery_id = ?")
        .bind(deliveryId)
        .first<{ status: string }>();
      return row?.status === "suspended" ? true : undefined;
    },
    "the index to show the suspended record",
  );
  return { sessionKey, deliveryId };
}

describe("console: deliveries", () => {
  it("shows suspended and failed records first with retry and dismiss; filters and escapes; grants and bad params refused", async () => {
    const { sessionKey, deliveryId } = await suspendedReply(`gave up ${SCRIPT}`);
    // A refused post (a channel's 4xx) is `failed` at once: it waits on the operator too, listed first.
    const failedId = `failed-${uid()}`;
    const now = Date.now();
    await deliveryIndexUpsert(shardOf(sessionKey), {
      deliveryId: failedId,
      kind: "announce",
      sessionKey,
      agentId: "main",
      target: "channel:slack",
      status: "failed",
      attempts: 1,
      lastError: "HTTP 400",
      createdAt: now + 1,
      updatedAt: now + 1,
    }).run();

    const page = await fragment("/deliveries");
    expect(page.status, page.text).toBe(200);
    const html = page.html;
    expect(html).toContain("<h1>Deliveries</h1>");
    const suspendedAt = html.indexOf('<section id="attention"');
    const recentAt = html.indexOf('<section id="recent"');
    expect(suspendedAt).toBeGreaterThan(0);
    expect(recentAt).toBeGreaterThan(suspendedAt);
    const suspended = html.slice(suspendedAt, recentAt);
    const listed = [...suspended.matchAll(/<tr data-delivery="([^"]+)"/g)].map((m) => m[1]);
    expect(listed.indexOf(failedId)).toBeGreaterThanOrEqual(0);
    expect(listed.indexOf(failedId)).toBeLessThan(listed.indexOf(deliveryId));
    const row = suspended.slice(suspended.indexOf(`<tr data-delivery="${deliveryId}">`));
    expect(row).toMatch(/^<tr data-delivery="[^"]+"><td data-label="Kind">reply<\/td>/);
    expect(row).toContain(`<a href="/console/sessions/${enc(sessionKey)}">`);
    expect(row).toContain('<span class="status status-suspended">suspended</span>');
    expect(row).toContain(`<td class="last-error wide" data-label="Last error">gave up ${ESCAPED}</td>`);
    expect(row).toContain(
      `<form class="retry" data-api="/v1/deliveries/${deliveryId}/retry" data-after="reload" data-success="Retrying."><button type="submit">Retry</button></form>`,
    );
    expect(row).toContain(`<form class="dismiss" data-api="/v1/deliveries/${deliveryId}/dismiss"`);
    expect(html).not.toContain(SCRIPT);
    expect(suspended).toMatch(/<span class="count">\d+\+?<\/span>/);

    // The recent list, filtered by session and status; blank fields (a GET form sends all) are ignored.
    const filtered = await fragment(`/deliveries?status=suspended&kind=&sessionKey=${enc(sessionKey)}`);
    const recent = filtered.html.slice(filtered.html.indexOf('<section id="recent"'));
    expect(recent).toContain('<details class="filter-box" open=""><summary>Filters (in use)</summary>');
    expect(html).toContain('<details class="filter-box"><summary>Filters</summary>');
    expect([...recent.matchAll(/<tr data-delivery="([^"]+)"/g)].map((m) => m[1])).toEqual([deliveryId]);
    expect(recent).toContain('<option value="suspended" selected="">suspended</option>');
    const none = await fragment(`/deliveries?status=delivered&sessionKey=${enc(sessionKey)}`);
    expect(none.html.slice(none.html.indexOf('<section id="recent"'))).toContain("No delivery matches.");

    // The form posts work as the page says: retry takes the record out of the suspended ones.
    const retried = await call("POST", `/v1/deliveries/${deliveryId}/retry`, { token: ADMIN });
    expect(retried.status, retried.text).toBe(200);

    for (const [query, field] of [
      ["status=lost", "status"],
      ["cursor=nope", "cursor"],
      ["sessionKey=nobody", "sessionKey"],
      ["color=red", ""],
    ] as const) {
      const bad = await fragment(`/deliveries?${query}`);
      expect(bad.status, query).toBe(400);
      if (field) expect(bad.json.error.message, query).toMatch(new RegExp(`^${field}: `));
    }
  });
});
