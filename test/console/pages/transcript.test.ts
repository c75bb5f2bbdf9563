import { describe, expect, it } from "vitest";
import { ADMIN, call, createSession, grantFor, importMessages, msg, uid } from "../../support";
import { sessionFragment } from "../../support/console";

describe("console transcript paging", () => {
  it("pages the exact view back from the newest and opens the safe view at a search hit's message", async () => {
    const key = `agent:main:console-${uid()}`;
    await createSession({ key });
    const messages = Array.from({ length: 120 }, (_, i) => msg(`p${i}`, "user", `message ${i}`, 1_000 + i));
    await importMessages(key, messages);
    const ids = (html: string) => [...html.matchAll(/id="m-(p\d+)"/g)].map((m) => m[1]);

    const newest = await call("GET", sessionFragment(key, "/transcript?view=exact"), { token: ADMIN });
    expect(ids(newest.text)).toEqual(messages.slice(70).map((m) => m.id));
    const earlier = /href="([^"]+)">Older messages/.exec(newest.text)?.[1] ?? "";
    expect(earlier).toMatch(/\?view=exact&amp;before=\d+$/);
    const back = await call(
      "GET",
      sessionFragment(key, `/transcript${earlier.slice(earlier.indexOf("?")).replaceAll("&amp;", "&")}`),
      {
        token: ADMIN,
      },
    );
    expect(ids(back.text)).toEqual(messages.slice(20, 70).map((m) => m.id));
    expect(back.text).toContain(">Newest messages<");

    // The safe view: the newest page links to older ones, an older page back to the newest.
    const safe = await call("GET", sessionFragment(key, "/transcript"), { token: ADMIN });
    expect(ids(safe.text).at(-1)).toBe("p119");
    expect(safe.text).toContain(`href="/console/sessions/${encodeURIComponent(key)}?offset=50"`);
    const hit = await call("GET", sessionFragment(key, "/transcript?at=p10"), { token: ADMIN });
    expect(ids(hit.text)).toContain("p10");
    expect(hit.text).toContain(`href="/console/sessions/${encodeURIComponent(key)}">Newest messages`);
    // A recent hit opens the newest page, which keeps following new messages.
    const recent = await call("GET", sessionFragment(key, "/transcript?at=p115"), { token: ADMIN });
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
    const reader = (await grantFor(mixed, ["read"])).token;
    const chatHit = await call("GET", sessionFragment(mixed, "/transcript?at=c20"), { token: reader });
    expect(chatHit.status, chatHit.text).toBe(200);
    expect([...chatHit.text.matchAll(/id="m-(c\d+)"/g)].map((m) => m[1])).toContain("c20");
    // A message id that is not there opens the newest page.
    expect(
      ids((await call("GET", sessionFragment(key, "/transcript?at=nope"), { token: ADMIN })).text).at(-1),
    ).toBe("p119");
  });
});
