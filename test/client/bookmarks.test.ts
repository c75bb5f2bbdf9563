import { describe, expect, it } from "vitest";
import { BOOKMARK_HEADER, Bookmarks } from "../../packages/client/src/index";
import { keyShard } from "../../src/index-db/shards";
import { ADMIN, shards, uid } from "../support";
import { testClient } from "./fixtures";

const shardOf = (key: string) => shards().indexOf(keyShard(shards(), key));

describe("the client sends back the bookmarks it is answered with (SPEC §24)", () => {
  it("keeps each shard's newest bookmark and sends it with the next call, its own writes then read", async () => {
    const { client, requests } = testClient({ token: ADMIN, session: "agent:main:main" });
    const key = `agent:main:client-bookmark-${uid()}`;
    await client.createSession({ agentId: "main", key });
    expect(requests[0]?.headers.has(BOOKMARK_HEADER)).toBe(false);
    // The object wrote its shard: the next call reads that shard at the primary.
    expect(client.options.bookmarks?.header).toContain(`${shardOf(key)}=first-primary`);

    const grant = await client.createGrant({ sessionKey: key, scopes: ["read"], ttlSeconds: 600 });
    expect(requests.at(-1)?.headers.get(BOOKMARK_HEADER)).toContain(`${shardOf(key)}=first-primary`);
    const grants = await client.grants();
    expect(grants.grants.map((row) => row.grantId)).toContain(grant.grantId);
    const sent = requests.at(-1)?.headers.get(BOOKMARK_HEADER) ?? "";
    expect(sent).toMatch(/(^|, )0=[0-9a-f]{8}-/);

    // A client made with `with()` shares them.
    const other = client.with({ session: "agent:main:main" });
    await other.healthz();
    expect(requests.at(-1)?.headers.get(BOOKMARK_HEADER)).toBe(client.options.bookmarks?.header);
  });

  it("merges by shard: a shard an answer leaves out keeps its bookmark", () => {
    const bookmarks = new Bookmarks();
    bookmarks.update("0=aa-01, 1=bb-01");
    bookmarks.update("1=bb-02");
    bookmarks.update(null);
    expect(bookmarks.header).toBe("0=aa-01, 1=bb-02");
  });
});
