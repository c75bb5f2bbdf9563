import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  importMessages,
  msg,
  sessionPath,
  uid,
} from "../../support";

const SCRIPT = "<script>alert(1)</script>";
const ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;";

const page = (key: string, query = "") => `/console/fragments/sessions/${encodeURIComponent(key)}${query}`;

/** A grant on `sessionKey` with these scopes; answers its token. */
async function grantToken(sessionKey: string, scopes: string[]): Promise<string> {
  const created = await call<{ token: string }>("POST", "/v1/grants", {
    token: ADMIN,
    body: { sessionKey, scopes, ttlSeconds: 600 },
  });
  expect(created.status, created.text).toBe(201);
  return created.json.token;
}

/** A session whose label and transcript carry markup, as an attacker would write them. */
async function hostileSession(): Promise<string> {
  const key = `agent:main:console-${uid()}`;
  await createSession({ key, label: `label ${SCRIPT}` });
  await importMessages(key, [
    msg("m1", "user", `hello ${SCRIPT}`, 1_000, { provenance: { kind: "external_user" } }),
    msg("m2", "assistant", [{ type: "text", text: `answer ${SCRIPT}` }], 2_000),
    msg("m3", "user", "from another agent", 3_000, {
      provenance: { kind: "inter_session", sourceSessionKey: "agent:research:main" },
    }),
    msg("m4", "user", "the task", 4_000, { provenance: { kind: "subagent_task" } }),
  ]);
  return key;
}

/** The Content-Security-Policy of a response, which every console response must carry. */
async function policyOf(path: string, token?: string): Promise<{ status: number; csp: string | null }> {
  const { exports } = await import("cloudflare:workers");
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await exports.default.fetch(`http://switchboard.test${path}`, { headers });
  await response.arrayBuffer();
  return { status: response.status, csp: response.headers.get("Content-Security-Policy") };
}

describe("console pages, assets and sign-in", () => {
  it("answers /favicon.ico with its icon, which every console page names", async () => {
    const { exports } = await import("cloudflare:workers");
    const icon = await exports.default.fetch("http://switchboard.test/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("Content-Type")).toBe("image/svg+xml");
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    const shell = await call("GET", "/console/sessions");
    expect(shell.text).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml"/>');
  });

  it("serves data-free shells and its own assets, each under a strict CSP, also on errors", async () => {
    const key = await hostileSession();
    const shell = await call("GET", `/console/sessions/${encodeURIComponent(key)}?view=exact`);
    expect(shell.status).toBe(200);
    // The shell names the fragment to fetch and holds nothing of the session's.
    expect(shell.text).toContain(
      `data-fragment="/console/fragments/sessions/${encodeURIComponent(key)}?view=exact"`,
    );
    expect(shell.text).not.toContain("alert(1)");
    const assets = [...shell.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const served = await call("GET", asset ?? "");
      expect(served.status).toBe(200);
      expect(served.text.length).toBeGreaterThan(500);
    }
    // The script's own import, served as text too (not bundled into the Worker as code), asked for by
    // its versioned URL so the two always come from one deploy.
    const main = await call("GET", assets.find((url) => url?.includes("console.js")) ?? "");
    const liveUrl = assets.find((url) => url?.includes("console-live.js")) ?? "";
    expect(main.text).toContain(`from "./console-live.js?v=${liveUrl.split("?v=")[1]}"`);
    const live = await call("GET", liveUrl);
    expect(live.text).toContain("export function follow(");
    // Only names of the console's files are assets; a version not this text's own is not cached for good.
    for (const name of ["constructor", "__proto__", "toString", "nope.js"])
      expect((await call("GET", `/console/assets/${name}`)).status).toBe(404);
    const { exports } = await import("cloudflare:workers");
    const stale = await exports.default.fetch("http://switchboard.test/console/assets/console.js?v=0000");
    await stale.arrayBuffer();
    expect(stale.headers.get("Cache-Control")).toBe("no-cache");
    const versioned = await exports.default.fetch(`http://switchboard.test${assets[0]}`);
    await versioned.arrayBuffer();
    expect(versioned.headers.get("Cache-Control")).toContain("immutable");
    const cases = [
      await policyOf("/console"),
      await policyOf(assets[0] ?? ""),
      await policyOf("/console/fragments/whoami", ADMIN),
      await policyOf("/console/fragments/whoami"),
      await policyOf("/console/fragments/whoami", "wrong-token"),
      await policyOf("/console/no-such-page"),
      await policyOf(page(key), ADMIN),
    ];
    expect(cases.map((entry) => entry.status)).toEqual([200, 200, 200, 401, 401, 404, 200]);
    for (const { csp } of cases) {
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("require-trusted-types-for 'script'");
      expect(csp).not.toContain("unsafe-inline");
    }
  });

  it("whoami: the operator, a grant with its session, 403 for agent tokens, 401 for a wrong token", async () => {
    const key = `agent:main:console-${uid()}`;
    await createSession({ key });
    expect((await call("GET", "/console/fragments/whoami", { token: ADMIN })).json).toEqual({
      kind: "operator",
    });
    const grant = await grantToken(key, ["read"]);
    const who = await call("GET", "/console/fragments/whoami", { token: grant });
    expect(who.json).toEqual({ kind: "grant", sessionKey: key, displayKey: key, scopes: ["read"] });
    const agent = await call<ApiError>("GET", "/console/fragments/whoami", { token: AGENT_TOKENS.main });
    expect(agent.status).toBe(403);
    expect(agent.json.error.message).toMatch(/operator token or a session grant/);
    const wrong = await call<ApiError>("GET", "/console/fragments/whoami", { token: "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toMatch(/at |stack/i);
  });
});

describe("console session page", () => {
  it("renders every text escaped, with provenance badges, in the safe and the exact view", async () => {
    const key = await hostileSession();
    const head = await call("GET", page(key), { token: ADMIN });
    expect(head.status, head.text).toBe(200);
    expect(head.text).not.toContain(SCRIPT);
    expect(head.text).toContain(`label ${ESCAPED}`);
    // The operator's regions and actions are there, each loaded by the client.
    for (const part of ["/transcript", "/runs", "/tree", "/activity", "/deliveries"])
      expect(head.text).toContain(`data-src="${page(key, part)}`);
    expect(head.text).toContain('id="send"');
    expect(head.text).toContain("data-stream");
    expect(head.text).toContain(`data-live="${sessionPath(key, "/events")}?tree=1"`);

    const safe = await call("GET", page(key, "/transcript"), { token: ADMIN });
    expect(safe.status).toBe(200);
    expect(safe.text).not.toContain("<script>");
    expect(safe.text).toContain(`hello ${ESCAPED}`);
    expect(safe.text).toContain(`answer ${ESCAPED}`);
    const badges = [...safe.text.matchAll(/data-provenance="([^"]+)"/g)].map((m) => m[1]);
    expect(badges).toEqual(["user", "assistant", "agent", "subagent_task"]);
    expect(safe.text).toContain(`href="/console/sessions/${encodeURIComponent("agent:research:main")}"`);

    const exact = await call("GET", page(key, "/transcript?view=exact"), { token: ADMIN });
    expect(exact.status).toBe(200);
    expect(exact.text).not.toContain("<script>");
    expect(exact.text).toContain(`hello ${ESCAPED}`);
    expect(exact.text).toContain("&quot;provenance&quot;");
  });

  it("shows a grant only what its scopes allow, and only its own session", async () => {
    const key = await hostileSession();
    const other = await hostileSession();
    const reader = await grantToken(key, ["read"]);
    const view = await call("GET", page(key), { token: reader });
    expect(view.status, view.text).toBe(200);
    expect(view.text).toContain(`data-src="${page(key, "/transcript")}"`);
    for (const hidden of ['id="send"', "data-live=", "/runs", "/tree", "Exact view", 'id="patch"'])
      expect(view.text).not.toContain(hidden);
    expect((await call("GET", page(key, "/transcript"), { token: reader })).status).toBe(200);
    const exact = await call<ApiError>("GET", page(key, "/transcript?view=exact"), { token: reader });
    expect(exact.status).toBe(403);
    expect((await call("GET", page(other), { token: reader })).status).toBe(403);
    expect((await call("GET", page(other, "/transcript"), { token: reader })).status).toBe(403);

    const talker = await grantToken(key, ["read", "send", "events"]);
    const full = await call("GET", page(key), { token: talker });
    expect(full.text).toContain('id="send"');
    expect(full.text).toContain(`data-live="${sessionPath(key, "/events")}"`);
    expect(full.text).not.toContain("?tree=1");

    const sendOnly = await grantToken(key, ["send"]);
    expect((await call("GET", page(key), { token: sendOnly })).status).toBe(403);
  });

  it("answers a bad query or an unknown session with a 4xx naming it, never a page", async () => {
    const key = await hostileSession();
    const bad = await call<ApiError>("GET", page(key, "/transcript?offset=-1"), { token: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/offset/);
    // A link's own fields (tracking and the like) are no reason to refuse the page.
    expect((await call("GET", page(key, "?utm_source=mail"), { token: ADMIN })).status).toBe(200);
    const missing = await call("GET", page(`agent:main:absent-${uid()}`), { token: ADMIN });
    expect(missing.status).toBe(404);
  });
});

describe("console transcript paging", () => {
  it("pages the exact view back from the newest and opens the safe view at a search hit's message", async () => {
    const key = `agent:main:console-${uid()}`;
    await createSession({ key });
    const messages = Array.from({ length: 120 }, (_, i) => msg(`p${i}`, "user", `message ${i}`, 1_000 + i));
    await importMessages(key, messages);
    const ids = (html: string) => [...html.matchAll(/id="m-(p\d+)"/g)].map((m) => m[1]);

    const newest = await call("GET", page(key, "/transcript?view=exact"), { token: ADMIN });
    expect(ids(newest.text)).toEqual(messages.slice(70).map((m) => m.id));
    const earlier = /href="([^"]+)">Older messages/.exec(newest.text)?.[1] ?? "";
    expect(earlier).toMatch(/\?view=exact&amp;before=\d+$/);
    const back = await call(
      "GET",
      page(key, `/transcript${earlier.slice(earlier.indexOf("?")).replaceAll("&amp;", "&")}`),
      {
        token: ADMIN,
      },
    );
    expect(ids(back.text)).toEqual(messages.slice(20, 70).map((m) => m.id));
    expect(back.text).toContain(">Newest messages<");

    // The safe view: the newest page links to older ones, an older page back to the newest.
    const safe = await call("GET", page(key, "/transcript"), { token: ADMIN });
    expect(ids(safe.text).at(-1)).toBe("p119");
    expect(safe.text).toContain(`href="/console/sessions/${encodeURIComponent(key)}?offset=50"`);
    const hit = await call("GET", page(key, "/transcript?at=p10"), { token: ADMIN });
    expect(ids(hit.text)).toContain("p10");
    expect(hit.text).toContain(`href="/console/sessions/${encodeURIComponent(key)}">Newest messages`);
    // A recent hit opens the newest page, which keeps following new messages.
    const recent = await call("GET", page(key, "/transcript?at=p115"), { token: ADMIN });
    expect(ids(recent.text).at(-1)).toBe("p119");
    expect(recent.text).not.toContain("Newest messages");
    // With tool messages hidden (a grant's view), the hit is counted among chat messages.
    const mixed = `agent:main:console-${uid()}`;
    await createSession({ key: mixed });
    const turns = Array.from({ length: 160 }, (_, i) =>
      i % 2 === 0
        ? msg(`c${i}`, "user", `asked ${i}`, 1_000 + i)
        : msg(`c${i}`, "toolResult", `tool said ${i}`, 1_000 + i, { toolCallId: `t${i}`, toolName: "x" }),
    );
    await importMessages(mixed, turns);
    const reader = await grantToken(mixed, ["read"]);
    const chatHit = await call("GET", page(mixed, "/transcript?at=c20"), { token: reader });
    expect(chatHit.status, chatHit.text).toBe(200);
    expect([...chatHit.text.matchAll(/id="m-(c\d+)"/g)].map((m) => m[1])).toContain("c20");
    // A message id that is not there opens the newest page.
    expect(ids((await call("GET", page(key, "/transcript?at=nope"), { token: ADMIN })).text).at(-1)).toBe(
      "p119",
    );
  });
});

describe("PATCH /v1/sessions/{key} archived (the console's archive and restore)", () => {
  it("archives and restores this generation only", async () => {
    const key = `agent:main:console-${uid()}`;
    const created = await createSession({ key });
    const stale = await call<ApiError>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: true, expectedSessionId: "not-this-one" },
    });
    expect(stale.status).toBe(409);
    const archived = await call<{ archived?: boolean }>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: true, expectedSessionId: created.sessionId },
    });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.json.archived).toBe(true);
    const unnamed = await call<ApiError>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: false },
    });
    expect(unnamed.status).toBe(400);
    expect(unnamed.json.error.message).toMatch(/^expectedSessionId: /);
    const restored = await call<{ archived?: boolean }>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: false, expectedSessionId: created.sessionId },
    });
    expect(restored.json.archived).toBe(false);
  });
});
