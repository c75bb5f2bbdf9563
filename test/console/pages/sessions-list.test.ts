import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deliveryIndexUpsert } from "../../../src/index-db/deliveries";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  deliverBatch,
  driveUntil,
  importMessages,
  inbound,
  msg,
  postInbound,
  session,
  stub,
  uid,
} from "../../support";
import { shardOf } from "../../support/shards";

const SCRIPT = "<script>alert(1)</script>";
const ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;";

/** A console fragment as the client fetches it: its status, type, CSP and HTML. */
async function fragment(path: string, token = ADMIN) {
  const answer = await call<ApiError>("GET", `/console/fragments${path}`, { token });
  return { ...answer, html: answer.text };
}

/** The `data-key` values of the session table's rows, in order. */
const rowKeys = (html: string) =>
  [...html.matchAll(/<tr data-key="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? ""));

/** The `data-key` values of the search hits, in order. */
const hitKeys = (html: string) =>
  [...html.matchAll(/<li data-key="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? ""));

/** The "Next page" link's href, attribute entities decoded. */
const nextHref = (html: string) => {
  const href = /<a class="next" href="([^"]*)"/.exec(html)?.[1];
  return href === undefined ? undefined : decodeEntities(href);
};

const decodeEntities = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");

const enc = encodeURIComponent;

/** A session key as the console writes it: a line may break after each colon, never inside a part. */
const keyHtml = (key: string) => key.replaceAll(":", ":<wbr/>");

describe("console: sessions list and search", () => {
  it("lists with sessions_list's filters, the archived toggle and cursor paging; labels are escaped", async () => {
    const u = uid();
    const other = `agent:main:lst-${u}-other`;
    const cron = `agent:main:cron:lst-${u}`;
    const group = `agent:main:discord:group:lst-${u}`;
    const archived = `agent:main:lst-${u}-old`;
    await createSession({ agentId: "main", key: archived, label: `old ${u}` });
    await createSession({ agentId: "main", key: cron });
    await createSession({ agentId: "main", key: group, label: `grp ${u}` });
    await createSession({ agentId: "main", key: other, label: `${SCRIPT} ${u}` });
    expect((await session(archived).patch({ archived: true })).ok).toBe(true);

    // `search` narrows to this test's sessions; newest activity first; the archived one is hidden.
    const all = await fragment(`/sessions?search=lst-${u}`);
    expect(all.status, all.text).toBe(200);
    expect(rowKeys(all.html)).toEqual([other, group, cron]);
    expect(all.html).toContain("<h1>Sessions</h1>");
    expect(all.html).toContain('<form class="filters" method="get" action="/console/sessions"');
    expect(all.html).toContain('<form class="search" method="get" action="/console/sessions"');
    expect(all.html).toContain(`<a href="/console/sessions/${enc(other)}">${keyHtml(other)}</a>`);
    // Filters in use show open, saying so; with none the list comes first and the filters stay folded.
    expect(all.html).toContain('<details class="filter-box" open=""><summary>Filters (in use)</summary>');
    const unfiltered = await fragment("/sessions?limit=1");
    expect(unfiltered.html).toContain('<details class="filter-box"><summary>Filters</summary>');
    // The label is text: escaped, never markup.
    expect(all.html).toContain(`${ESCAPED_SCRIPT} ${u}`);
    expect(all.html).not.toContain(SCRIPT);
    // Each cell names its column, so a narrow screen shows a row as a card of labelled values.
    expect(all.html).toMatch(
      /<td data-label="Kind">other<\/td><td data-label="Channel">[^<]*<\/td><td data-label="Agent">main<\/td>/,
    );
    expect(all.html).toContain('<span class="status status-idle">idle</span>');
    expect(all.html).toContain(">just now</time>");
    // The filter form shows the filter sent.
    expect(all.html).toContain(`name="search" type="search" value="lst-${u}"`);
    expect(nextHref(all.html)).toBeUndefined();

    const kinds = await fragment(`/sessions?search=lst-${u}&kinds=cron&kinds=group`);
    expect(rowKeys(kinds.html)).toEqual([group, cron]);
    expect(kinds.html).toContain('name="kinds" value="cron" checked');
    expect(rowKeys((await fragment(`/sessions?search=lst-${u}&kinds=cron,group`)).html)).toEqual([
      group,
      cron,
    ]);
    expect(rowKeys((await fragment(`/sessions?label=${enc(`grp ${u}`)}`)).html)).toEqual([group]);

    // The archived toggle: archived only, or both (the archived one marked).
    const only = await fragment(`/sessions?search=lst-${u}&archived=true`);
    expect(rowKeys(only.html)).toEqual([archived]);
    expect(only.html).toContain('<span class="badge archived">archived</span>');
    expect(only.html).toContain('<option value="true" selected="">Archived only</option>');
    const both = await fragment(`/sessions?search=lst-${u}&archived=all`);
    expect(rowKeys(both.html)).toEqual([other, group, cron, archived]);
    expect(rowKeys((await fragment(`/sessions?search=lst-${u}&archived=`)).html)).toEqual([
      other,
      group,
      cron,
    ]);

    // Cursor paging: the next link keeps the filters and reaches the rest.
    const first = await fragment(`/sessions?search=lst-${u}&archived=all&limit=3`);
    expect(rowKeys(first.html)).toEqual([other, group, cron]);
    const next = nextHref(first.html) ?? "";
    expect(next).toMatch(/^\/console\/sessions\?/);
    const params = new URL(next, "http://x").searchParams;
    expect([params.get("search"), params.get("archived"), params.get("limit")]).toEqual([
      `lst-${u}`,
      "all",
      "3",
    ]);
    expect(params.get("cursor")).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = await fragment(next.replace("/console", ""));
    expect(rowKeys(second.html)).toEqual([archived]);
    expect(nextHref(second.html)).toBeUndefined();
  });

  it("searches messages: hits link to the message, snippets escaped, next page; bad params 400 naming the field", async () => {
    const u = uid();
    const word = `zc${u}`;
    const key = `agent:main:lsearch-${u}`;
    const now = Date.now() - 60_000;
    await createSession({ agentId: "main", key });
    await importMessages(key, [
      msg("u1", "user", `look for ${word} ${SCRIPT}`, now),
      msg("a1", "assistant", [{ type: "text", text: `found ${word}` }], now + 1),
      msg("u2", "user", `again ${word}`, now + 2),
    ]);

    const found = await fragment(`/sessions?q=${enc(` ${word} `)}`);
    expect(found.status, found.text).toBe(200);
    expect(hitKeys(found.html)).toEqual([key, key, key]);
    expect(found.html).toContain('<ol class="hits">');
    expect(found.html).toContain(`<a href="/console/sessions/${enc(key)}?at=u1#m-u1">${keyHtml(key)}</a>`);
    expect(found.html).toContain(`<p class="snippet">look for ${word} ${ESCAPED_SCRIPT}</p>`);
    expect(found.html).not.toContain(SCRIPT);
    expect(found.html).toContain(`<input id="q" name="q" type="search" value="${word}"`);
    expect(found.html).not.toContain('<table class="sessions">');

    // By role, one page at a time: the next link carries the search's cursor and its words.
    const page = await fragment(`/sessions?q=${word}&role=user&limit=1`);
    expect(hitKeys(page.html)).toEqual([key]);
    const next = nextHref(page.html) ?? "";
    expect(new URL(next, "http://x").searchParams.get("q")).toBe(word);
    const second = await fragment(next.replace("/console", ""));
    expect(hitKeys(second.html)).toEqual([key]);
    expect(second.html).not.toEqual(page.html);
    expect(second.html).toContain('<span class="role">user</span>');
    expect(nextHref(second.html)).toBeUndefined();
    // One session only, by its key.
    expect(hitKeys((await fragment(`/sessions?q=${word}&sessionKey=${enc(key)}`)).html)).toHaveLength(3);
    expect(hitKeys((await fragment(`/sessions?q=${word}&sessionKey=agent:main:none-${u}`)).html)).toEqual([]);

    // Bad params: a 400 JSON error naming the field.
    for (const [query, field] of [
      ["limit=abc", "limit"],
      ["archived=sometimes", "archived"],
      ["cursor=nope", "cursor"],
      [`q=${word}&role=robot`, "role"],
      [`q=${word}&cursor=nope`, "cursor"],
      [`q=${word}&sessionKey=nobody`, "sessionKey"],
    ] as const) {
      const bad = await fragment(`/sessions?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.json.error.message, query).toMatch(new RegExp(`^${field}: `));
    }
  });
});

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
    expect(row).toContain(
      `<td class="last-error wide" data-label="Last error">gave up ${ESCAPED_SCRIPT}</td>`,
    );
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

  it("a grant, an agent token or no token reaches none of the lists", async () => {
    const key = `agent:main:lgrant-${uid()}`;
    await createSession({ agentId: "main", key });
    const grant = await call<{ token: string }>("POST", "/v1/grants", {
      token: ADMIN,
      body: { sessionKey: key, scopes: ["read", "send", "events"], ttlSeconds: 600 },
    });
    expect(grant.status, grant.text).toBe(201);
    for (const path of ["/sessions", "/sessions?q=hello", "/deliveries"]) {
      const asGrant = await fragment(path, grant.json.token);
      expect(asGrant.status, path).toBe(403);
      expect(asGrant.json.error.code).toBe("forbidden");
      expect((await fragment(path, AGENT_TOKENS.main)).status, path).toBe(403);
      expect((await fragment(path, "wrong-token")).status, path).toBe(401);
    }
  });
});
