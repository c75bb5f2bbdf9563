import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, ReplicaSessions } from "../../src/index-db/replicas";
import { keyShard } from "../../src/index-db/shards";
import { ADMIN, AGENT_TOKENS, BASE_URL, readResult, shards, uid } from "../support";

// Local D1 answers bookmarks of this shape (fixed-width hex, so they also compare as strings).
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** A request with a bearer token and, if given, bookmarks: its answer and the bookmarks it carries. */
async function send(method: string, path: string, token: string, bookmarks?: string, body?: unknown) {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (bookmarks !== undefined) headers[BOOKMARK_HEADER] = bookmarks;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await exports.default.fetch(`${BASE_URL}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await readResult<Record<string, unknown>>(response);
  return { ...answer, bookmarks: parse(response.headers.get(BOOKMARK_HEADER) ?? "") };
}

const parse = (header: string): Map<number, string> =>
  new Map(
    header
      .split(",")
      .filter((entry) => entry.trim() !== "")
      .map((entry) => {
        const [shard = "", value = ""] = entry.trim().split("=");
        return [Number(shard), value];
      }),
  );
const render = (bookmarks: Map<number, string>) => [...bookmarks].map(([n, b]) => `${n}=${b}`).join(", ");
/** The console's list of every session: the operator's read of every shard. */
const EVERY_SESSION = "/console/fragments/sessions";
const shardNumberOf = (sessionKey: string) => shards().indexOf(keyShard(shards(), sessionKey));

describe("D1 reads through sessions, with bookmarks (SPEC §24)", () => {
  it("a list reads every shard through a session and answers each shard's bookmark", async () => {
    const listed = await send("GET", EVERY_SESSION, ADMIN);
    expect(listed.status, listed.text).toBe(200);
    expect([...listed.bookmarks.keys()].sort()).toEqual([0, 1, 2]);
    for (const bookmark of listed.bookmarks.values()) expect(bookmark).toMatch(BOOKMARK);
  });

  it("honours a bookmark sent back: reads start at it, and shards not read keep it", async () => {
    const first = await send("GET", EVERY_SESSION, ADMIN);
    const again = await send("GET", EVERY_SESSION, ADMIN, render(first.bookmarks));
    expect(again.status, again.text).toBe(200);
    for (const [n, bookmark] of first.bookmarks)
      expect((again.bookmarks.get(n) ?? "") >= bookmark).toBe(true);
    // An agent token lists its own agent's shard only; the others' bookmarks come back as they were sent.
    const mine = shardNumberOf("agent:main:main");
    const own = await send("POST", "/v1/tools/sessions_list", AGENT_TOKENS.main, render(first.bookmarks), {});
    expect(own.status, own.text).toBe(200);
    for (const [n, bookmark] of first.bookmarks) if (n !== mine) expect(own.bookmarks.get(n)).toBe(bookmark);
  });

  it("a write the Worker makes is read back with the bookmark its answer carries", async () => {
    const key = `agent:main:replica-grant-${uid()}`;
    expect((await send("POST", "/v1/sessions", ADMIN, undefined, { key })).status).toBe(201);
    const created = await send("POST", "/v1/grants", ADMIN, undefined, {
      sessionKey: key,
      scopes: ["read"],
      ttlSeconds: 600,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.bookmarks.get(0)).toMatch(BOOKMARK);
    const listed = await send("GET", "/v1/grants", ADMIN, render(created.bookmarks));
    const grants = listed.json.grants as { grantId: string }[];
    expect(grants.map((grant) => grant.grantId)).toContain(created.json.grantId);
    expect((listed.bookmarks.get(0) ?? "") >= (created.bookmarks.get(0) ?? "~")).toBe(true);
  });

  it("after a session object wrote its shard, the next read of that shard starts at the primary", async () => {
    const key = `agent:research:replica-${uid()}`;
    const created = await send("POST", "/v1/sessions", ADMIN, undefined, { key, label: `replica-${uid()}` });
    expect(created.status, created.text).toBe(201);
    expect(created.bookmarks.get(shardNumberOf(key))).toBe("first-primary");
    const label = String(created.json.label);
    const listed = await send("GET", `${EVERY_SESSION}?label=${label}`, ADMIN, render(created.bookmarks));
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).toContain(key);
    expect(listed.bookmarks.get(shardNumberOf(key))).toMatch(BOOKMARK);
  });

  it("a read after an object call in the same request starts a new session at the primary", async () => {
    const opened = ReplicaSessions.open(shards(), undefined);
    if (!opened.ok) throw new Error(opened.message);
    const replicas = opened.value;
    const key = `agent:ops:replica-${uid()}`;
    const n = shardNumberOf(key);
    const db = replicas.shards[n] ?? replicas.shards[0];
    await db.prepare("SELECT 1").first();
    const read = parse(replicas.header() ?? "").get(n) ?? "";
    expect(read).toMatch(BOOKMARK);
    replicas.objectCalled(key);
    expect(parse(replicas.header() ?? "").get(n)).toBe("first-primary");
    await db.prepare("SELECT 1").first();
    const again = parse(replicas.header() ?? "").get(n) ?? "";
    expect(again).toMatch(BOOKMARK);
    expect(again >= read).toBe(true);
  });

  it("a malformed bookmark header is a 400 naming the header, in each surface's error shape", async () => {
    const valid = "00000000-00000011-00000000-00000000000000000000000000000000";
    for (const header of ["garbage", `0=${valid}, 0=${valid}`, `7=${valid}`, "0=not a bookmark", "0=zz-!!"]) {
      const answer = await send("POST", "/v1/tools/sessions_list", AGENT_TOKENS.main, header, {});
      expect(answer.status, header).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: "bad_request" } });
      expect(JSON.stringify(answer.json)).toContain(BOOKMARK_HEADER);
    }
    const invoke = await send("POST", "/tools/invoke", AGENT_TOKENS.main, "garbage", {
      tool: "sessions_list",
    });
    expect(invoke.status).toBe(400);
    expect(invoke.json).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining(BOOKMARK_HEADER) },
    });
  });
});
