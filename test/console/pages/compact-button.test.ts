import { describe, expect, it } from "vitest";
import type { CompactionAnswer } from "../../../src/session/api";
import { ADMIN, type ApiError, call, createSession, grantFor, importMessages, msg, uid } from "../../support";
import { decodeEntities, sessionFragment } from "../../support/console";

/** A session of the scripted agent with four turns (user, assistant), as imported. */
async function fourTurns(): Promise<string> {
  const key = `agent:main:console-compact-${uid()}`;
  await createSession({ agentId: "main", key });
  await importMessages(
    key,
    Array.from({ length: 8 }, (_, n) => msg(`c${n}`, n % 2 === 0 ? "user" : "assistant", `turn ${n}`, n + 1)),
  );
  return key;
}

/** The session page's fragment, as the client fetches it with `token`. */
async function page(key: string, token = ADMIN): Promise<string> {
  const head = await call("GET", sessionFragment(key), { token });
  expect(head.status, head.text).toBe(200);
  return head.text;
}

/** The route form#compact sends to (its `data-api`), or undefined when the page has no such form. */
const compactRoute = (html: string) => {
  const found = /<form id="compact" data-api="([^"]+)"/.exec(html)?.[1];
  return found === undefined ? undefined : decodeEntities(found);
};

/** The header's "Compactions" fact. */
const compactions = (html: string) => /<dt>Compactions<\/dt><dd>(\d+)<\/dd>/.exec(html)?.[1];

/** form#compact sent as the client sends a `data-api` form: POST, its (empty) fields as JSON. */
const send = (route: string, token = ADMIN) =>
  call<CompactionAnswer & ApiError>("POST", route, { token, body: {} });

describe("console: the Compact button (SPEC §20)", () => {
  it("shows the operator a form that compacts the session; the page then counts the compaction", async () => {
    const key = await fourTurns();
    const before = await page(key);
    expect(compactions(before)).toBe("0");
    const route = compactRoute(before);
    expect(route).toBe(`/v1/sessions/${encodeURIComponent(key)}/compact`);
    // The flash says what the answer says: no fixed success text stands in for it.
    expect(before).not.toMatch(/<form id="compact"[^>]*data-success/);

    const first = await send(route ?? "");
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ compacted: true, summarizedMessages: 4, keptMessages: 4 });
    expect(compactions(await page(key))).toBe("1");

    await send(route ?? "");
    const nothing = await send(route ?? "");
    expect(nothing.json).toEqual({
      compacted: false,
      reason: "nothing older than the newest turn to summarize",
      compactionCount: 2,
    });
    expect(compactions(await page(key))).toBe("2");
  });

  it("gives a grant no button, and its route refuses the grant; an unknown session is 404", async () => {
    const key = await fourTurns();
    const other = await fourTurns();
    const grant = (await grantFor(key, ["read", "send", "events"])).token;
    const granted = await page(key, grant);
    expect(compactRoute(granted)).toBeUndefined();
    expect(granted).toContain('id="send"');
    const route = `/v1/sessions/${encodeURIComponent(key)}/compact`;
    expect((await send(route, grant)).status).toBe(403);
    expect((await send(`/v1/sessions/${encodeURIComponent(other)}/compact`, grant)).status).toBe(403);
    expect(compactions(await page(key))).toBe("0");

    const missing = await send(`/v1/sessions/${encodeURIComponent(`agent:main:absent-${uid()}`)}/compact`);
    expect(missing.status).toBe(404);
  });
});
