import { describe, expect, it } from "vitest";
import { ADMIN, type ApiError, call, grantFor, sessionPath, uid } from "../../support";
import { ESCAPED, hostileSession, SCRIPT, sessionFragment } from "../../support/console";

describe("console session page", () => {
  it("renders every text escaped, with provenance badges, in the safe and the exact view", async () => {
    const key = await hostileSession();
    const head = await call("GET", sessionFragment(key), { token: ADMIN });
    expect(head.status, head.text).toBe(200);
    expect(head.text).not.toContain(SCRIPT);
    expect(head.text).toContain(`label ${ESCAPED}`);
    // The operator's regions and actions are there, each loaded by the client.
    for (const part of ["/transcript", "/runs", "/tree", "/activity", "/deliveries"])
      expect(head.text).toContain(`data-src="${sessionFragment(key, part)}`);
    expect(head.text).toContain('id="send"');
    expect(head.text).toContain("data-stream");
    expect(head.text).toContain(`data-live="${sessionPath(key, "/events")}?tree=1"`);

    const safe = await call("GET", sessionFragment(key, "/transcript"), { token: ADMIN });
    expect(safe.status).toBe(200);
    expect(safe.text).not.toContain("<script>");
    expect(safe.text).toContain(`hello ${ESCAPED}`);
    expect(safe.text).toContain(`answer ${ESCAPED}`);
    const badges = [...safe.text.matchAll(/data-provenance="([^"]+)"/g)].map((m) => m[1]);
    expect(badges).toEqual(["user", "assistant", "agent", "subagent_task"]);
    expect(safe.text).toContain(`href="/console/sessions/${encodeURIComponent("agent:research:main")}"`);

    const exact = await call("GET", sessionFragment(key, "/transcript?view=exact"), { token: ADMIN });
    expect(exact.status).toBe(200);
    expect(exact.text).not.toContain("<script>");
    expect(exact.text).toContain(`hello ${ESCAPED}`);
    expect(exact.text).toContain("&quot;provenance&quot;");
  });

  it("shows a grant only what its scopes allow, and only its own session", async () => {
    const key = await hostileSession();
    const other = await hostileSession();
    const reader = (await grantFor(key, ["read"])).token;
    const view = await call("GET", sessionFragment(key), { token: reader });
    expect(view.status, view.text).toBe(200);
    expect(view.text).toContain(`data-src="${sessionFragment(key, "/transcript")}"`);
    for (const hidden of ['id="send"', "data-live=", "/runs", "/tree", "Exact view", 'id="patch"'])
      expect(view.text).not.toContain(hidden);
    expect((await call("GET", sessionFragment(key, "/transcript"), { token: reader })).status).toBe(200);
    const exact = await call<ApiError>("GET", sessionFragment(key, "/transcript?view=exact"), {
      token: reader,
    });
    expect(exact.status).toBe(403);
    expect((await call("GET", sessionFragment(other), { token: reader })).status).toBe(403);
    expect((await call("GET", sessionFragment(other, "/transcript"), { token: reader })).status).toBe(403);

    const talker = (await grantFor(key, ["read", "send", "events"])).token;
    const full = await call("GET", sessionFragment(key), { token: talker });
    expect(full.text).toContain('id="send"');
    expect(full.text).toContain(`data-live="${sessionPath(key, "/events")}"`);
    expect(full.text).not.toContain("?tree=1");

    const sendOnly = (await grantFor(key, ["send"])).token;
    expect((await call("GET", sessionFragment(key), { token: sendOnly })).status).toBe(403);
  });

  it("answers a bad query or an unknown session with a 4xx naming it, never a page", async () => {
    const key = await hostileSession();
    const bad = await call<ApiError>("GET", sessionFragment(key, "/transcript?offset=-1"), { token: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/offset/);
    // A link's own fields (tracking and the like) are no reason to refuse the page.
    expect((await call("GET", sessionFragment(key, "?utm_source=mail"), { token: ADMIN })).status).toBe(200);
    const missing = await call("GET", sessionFragment(`agent:main:absent-${uid()}`), { token: ADMIN });
    expect(missing.status).toBe(404);
  });
});
