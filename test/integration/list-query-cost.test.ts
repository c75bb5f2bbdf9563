import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type ListCursor, type ListQuery, listStatement } from "../../src/index-db/list";
import { listSessions } from "../../src/index-db/list-page";
import { uid } from "../support";
import { shardsOf } from "../support/shards";
import { type SeedRow, seedIndexRows } from "./fixtures";

const MINUTE = 60_000;

describe("sessions_list query cost (D1 meta.rows_read and query plans)", () => {
  const LIMIT = 5;
  // The FTS5 records a trigram query reads besides its matches (structure, averages, a segment's pages).
  const FTS_RECORDS = 10;
  const u = uid();
  const agentA = `rra${u}`;
  const agentB = `rrb${u}`;
  const parent = `agent:${agentA}:parent`;
  const base = Date.now() - 10_000 * MINUTE;
  const kinds = ["group", "cron", "other", "hook"];
  // 64 sessions: 44 of agent A (half spawned by `parent`, some archived or hidden), 20 of agent B.
  const seeded = Array.from({ length: 64 }, (_, i): SeedRow & { kind: string; listState: number } => {
    const agentId = i < 44 ? agentA : agentB;
    return {
      sessionKey: `agent:${agentId}:s${String(i).padStart(2, "0")}`,
      agentId,
      kind: kinds[i % 4] ?? "other",
      // Pairs share a timestamp, so keyset paging must break ties (by the row's insertion order).
      updatedAt: base + Math.floor(i / 2) * MINUTE,
      ...(i % 2 === 0 && i < 44 ? { spawnedBy: parent } : {}),
      ...(i % 3 === 0 ? { label: "L" } : {}),
      listState: i % 11 === 5 ? 1 : i % 13 === 7 ? 2 : 0,
    };
  });
  type Seed = SeedRow & { kind: string; listState: number };
  // The tree scope's requester is a session of agent A too; it sorts among the seeded rows.
  const all: Seed[] = [
    ...seeded,
    {
      sessionKey: parent,
      agentId: agentA,
      kind: "other",
      updatedAt: base + 7 * MINUTE + 30_000,
      listState: 0,
    },
  ];
  // One shard's query cost: every row in DB, read through it alone (the single-shard path).
  const seededOnce = seedIndexRows(all, env.DB);
  // Ties: the row indexed later (higher rowid, and the seed inserts in array order) comes first.
  const newestFirst = (rows: Seed[]) =>
    [...rows].sort((a, b) => b.updatedAt - a.updatedAt || all.indexOf(b) - all.indexOf(a));

  // Search matches `:s1` in the key (search_text is the lower-cased key here): s1, s10–s19.
  const searchHit = (row: Seed) => row.sessionKey.includes(":s1");
  const cases: {
    name: string;
    query: Omit<ListQuery, "limit">;
    matches: (row: Seed) => boolean;
    branches: number;
    /** The rows of the index range walked, when a filter tests them instead of an index narrowing it. */
    walked?: (row: Seed) => boolean;
  }[] = [
    {
      // The listed sessions have no order of their own (migrations/0018): they walk every row's.
      name: "every agent visible, no filter",
      query: { scope: { type: "all" } },
      matches: (row) => row.listState === 0,
      branches: 1,
      walked: () => true,
    },
    {
      name: "every agent visible, archived only",
      query: { scope: { type: "all" }, archived: true },
      matches: (row) => row.listState === 1,
      branches: 1,
    },
    {
      // No index leads with the kind across agents (migrations/0016): the listed sessions' walk tests it.
      name: "every agent visible, one kind",
      query: { scope: { type: "all" }, kinds: ["group"] },
      matches: (row) => row.listState === 0 && row.kind === "group",
      branches: 1,
      walked: () => true,
    },
    {
      name: "every agent visible, two kinds",
      query: { scope: { type: "all" }, kinds: ["group", "cron"] },
      matches: (row) => row.listState === 0 && (row.kind === "group" || row.kind === "cron"),
      branches: 1,
      walked: () => true,
    },
    {
      name: "every agent visible, label",
      query: { scope: { type: "all" }, label: "L" },
      matches: (row) => row.listState === 0 && row.label === "L",
      branches: 1,
    },
    {
      name: "every agent visible, agentId",
      query: { scope: { type: "all" }, agentId: agentB },
      matches: (row) => row.agentId === agentB && row.listState === 0,
      branches: 1,
    },
    {
      name: "every agent visible, search",
      query: { scope: { type: "all" }, search: ":S1" },
      matches: (row) => row.listState === 0 && searchHit(row),
      branches: 1,
    },
    {
      name: "search with a scope and a kind",
      query: { scope: { type: "agents", agentIds: [agentA] }, kinds: ["group", "cron"], search: ":s1" },
      matches: (row) =>
        row.agentId === agentA &&
        row.listState === 0 &&
        searchHit(row) &&
        ["group", "cron"].includes(row.kind),
      branches: 1,
    },
    {
      name: "no filter",
      query: { scope: { type: "agents", agentIds: [agentA] } },
      matches: (row) => row.agentId === agentA && row.listState === 0,
      branches: 1,
    },
    {
      name: "one kind",
      query: { scope: { type: "agents", agentIds: [agentA] }, kinds: ["cron"] },
      matches: (row) => row.agentId === agentA && row.listState === 0 && row.kind === "cron",
      branches: 1,
    },
    {
      // A chat's kind has no per-kind order (migrations/0018): its agent's listed sessions' walk tests it.
      name: "a chat's kind",
      query: { scope: { type: "agents", agentIds: [agentA] }, kinds: ["group"] },
      matches: (row) => row.agentId === agentA && row.listState === 0 && row.kind === "group",
      branches: 1,
      walked: (row) => row.agentId === agentA && row.listState === 0,
    },
    {
      name: "two kinds",
      query: { scope: { type: "agents", agentIds: [agentA] }, kinds: ["cron", "hook"] },
      matches: (row) =>
        row.agentId === agentA && row.listState === 0 && (row.kind === "cron" || row.kind === "hook"),
      branches: 2,
    },
    {
      name: "agentId",
      query: { scope: { type: "agents", agentIds: [agentA, agentB] }, agentId: agentB },
      matches: (row) => row.agentId === agentB && row.listState === 0,
      branches: 1,
    },
    {
      name: "label",
      query: { scope: { type: "agents", agentIds: [agentA] }, label: "L" },
      matches: (row) => row.agentId === agentA && row.listState === 0 && row.label === "L",
      branches: 1,
    },
    {
      name: "activeMinutes",
      query: { scope: { type: "agents", agentIds: [agentA] }, updatedSince: base + 8 * MINUTE },
      matches: (row) => row.agentId === agentA && row.listState === 0 && row.updatedAt >= base + 8 * MINUTE,
      branches: 1,
    },
    {
      name: "archived included",
      query: { scope: { type: "agents", agentIds: [agentA] }, archived: "all" },
      matches: (row) => row.agentId === agentA && row.listState < 2,
      branches: 2,
    },
    {
      name: "tree scope",
      query: { scope: { type: "tree", sessionKey: parent, agentId: agentA } },
      matches: (row) => (row.spawnedBy === parent || row.sessionKey === parent) && row.listState === 0,
      branches: 2,
    },
    {
      name: "agent scope over two agents",
      query: { scope: { type: "agents", agentIds: [agentA, agentB] } },
      matches: (row) => row.listState === 0,
      branches: 2,
    },
  ];

  // The rows a walk of `walked` passes to find a page, from after the cursor to the row past the page, and
  // the one that ends it (the next entry of the index, read to see the range or the table is done).
  const walkedRows = (walked: (row: Seed) => boolean, matches: (row: Seed) => boolean, after: number) => {
    const range = newestFirst(all.filter(walked));
    let found = 0;
    let read = 0;
    for (const row of range.slice(after)) {
      read++;
      if (matches(row) && ++found > LIMIT) return read;
    }
    return read + 1;
  };

  for (const { name, query, matches, branches, walked } of cases) {
    it(`${name}: every page reads O(limit) rows, deep cursor pages included`, async () => {
      await seededOnce;
      const expected = newestFirst(all.filter(matches));
      expect(expected.length).toBeGreaterThan(query.search ? 1 : LIMIT);
      const seen: string[] = [];
      let cursor: ListCursor | undefined;
      do {
        const page = await listSessions(shardsOf(env.DB), {
          ...query,
          limit: LIMIT,
          ...(cursor ? { cursor } : {}),
        });
        // One row past the page tells whether there is more; each further merged branch reads one ahead.
        // Never more, however deep the cursor. A search reads every match twice (its FTS entry, then its
        // row: migrations/0020), whatever the page, and a few of the FTS index's own records (its structure
        // and segments); a walk, the rows it passes.
        const passed = newestFirst(all.filter(walked ?? matches)).findIndex(
          (row) => row.sessionKey === seen[seen.length - 1],
        );
        const bound = query.search
          ? 2 * all.filter(searchHit).length + FTS_RECORDS
          : walked
            ? walkedRows(walked, matches, seen.length === 0 ? 0 : passed + 1)
            : LIMIT + branches;
        seen.push(...page.rows.map((row) => String(row.session_key)));
        expect(page.rowsRead, `${name} after ${seen.length} rows`).toBeLessThanOrEqual(bound);
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(expected.map((row) => row.sessionKey));
    });
  }

  it("past D1's compound-select and parameter limits, OR-ed dimensions return the same rows", async () => {
    await seededOnce;
    const allKinds = ["main", "group", "cron", "hook", "node", "other"];
    const query = {
      scope: { type: "agents" as const, agentIds: [agentA, agentB, `rrc${u}`] },
      kinds: allKinds,
      archived: "all" as const,
      updatedSince: base + 3 * MINUTE,
    };
    // 3 agents × 6 kinds × 2 list states would be 36 branches; D1 takes at most 5 compound terms.
    expect(listStatement({ ...query, limit: LIMIT })?.sql.split("UNION ALL")).toHaveLength(3);
    const expected = newestFirst(
      all.filter((row) => row.listState < 2 && row.updatedAt >= base + 3 * MINUTE),
    );
    const seen: string[] = [];
    let cursor: ListCursor | undefined;
    do {
      const page = await listSessions(shardsOf(env.DB), {
        ...query,
        limit: LIMIT,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.rows.map((row) => String(row.session_key)));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected.map((row) => row.sessionKey));
  });

  it("every indexed filter is answered from an index in order: no table scan, no sort; a search from its matches", async () => {
    await seededOnce;
    const cursor = { updatedAt: base + 20 * MINUTE, tiebreak: 1 };
    for (const { name, query, branches, walked } of cases) {
      for (const withCursor of [false, true]) {
        const statement = listStatement({ ...query, limit: LIMIT, ...(withCursor ? { cursor } : {}) });
        if (!statement) throw new Error(`${name}: no statement`);
        const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
          .bind(...statement.params)
          .all<{ detail: string }>();
        const details = plan.results.map((row) => row.detail);
        const reads = details.filter((detail) => /\bsession_index\b/.test(detail));
        expect(reads, name).toHaveLength(branches);
        // A search reads the FTS index's matches, looks each one's row up by its rowid and sorts them.
        if (query.search) {
          expect(details[0], name).toMatch(/^SCAN session_search VIRTUAL TABLE INDEX /);
          expect(details[1], name).toMatch(/^SEARCH session_index USING INTEGER PRIMARY KEY \(rowid=\?\)/);
          continue;
        }
        // A walk with no range (no cursor, every agent) is a SCAN of an index, still in order.
        for (const detail of reads)
          expect(detail, name).toMatch(
            walked
              ? /^(SCAN|SEARCH) session_index USING (COVERING )?INDEX /
              : /^SEARCH session_index USING (COVERING )?INDEX /,
          );
        expect(details.join("\n"), name).not.toMatch(/TEMP B-TREE/);
      }
    }
  });
});
