import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, call, createSession, importMessages, msg, session, uid } from "../../support";
import { decodeEntities, ESCAPED, fragment, SCRIPT } from "../../support/console";

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
    expect(all.html).toContain(`${ESCAPED} ${u}`);
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
    expect(found.html).toContain(`<p class="snippet">look for ${word} ${ESCAPED}</p>`);
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

describe("console lists: the operator's only", () => {
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
