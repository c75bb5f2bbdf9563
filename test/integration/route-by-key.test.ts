import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load";
import { deliveryIndexUpsert, findDelivery } from "../../src/index-db/deliveries";
import { shardNumber } from "../../src/index-db/shards";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  createSession,
  driveUntil,
  importMessages,
  msg,
  sendMessage,
  toolWithConfig,
  uid,
  waitRun,
} from "../support";
import { agentWide, keyIn, PUBLIC_HOME, shardIndex } from "../support/route-by-key";
import { rowsInEveryShard, shardOf, shards } from "../support/shards";
import { spawnOk, subagents } from "../support/subagents";

describe("index.routeByKey: one agent's sessions spread over every shard by their key", () => {
  it("names a configured agent, or '*'; an unknown one is an error at its place in the list", () => {
    const agents = { list: [{ id: "bot" }, { id: "other" }] };
    expect(parseConfig(JSON.stringify({ agents, index: { routeByKey: ["bot"] } })).ok).toBe(true);
    expect(parseConfig(JSON.stringify({ agents, index: { routeByKey: "*" } })).ok).toBe(true);
    const bad = parseConfig(JSON.stringify({ agents, index: { routeByKey: ["bot", "nobody"] } }));
    expect(bad.ok ? "" : bad.error).toContain('index.routeByKey[1]: unknown agent "nobody"');
  });

  it("lookups by key, run id and delivery id, search and deletion answer for sessions in any shard", async () => {
    const u = uid();
    const word = `zroute${u}`;
    const keys = [0, 1, 2].map((shard) => keyIn(shard, `look-${u}`));
    const now = Date.now() - 60_000;
    for (const [at, key] of keys.entries()) {
      await createSession({ agentId: "public", key });
      await importMessages(key, [msg(`m${at}`, "user", `found ${word} here`, now + at)]);
    }
    // A chat turn's run id is minted to hash to its session's shard, and GET /v1/runs finds it.
    const chat = keys[1] ?? "";
    const runId = await sendMessage(chat, "hello");
    await waitRun(runId);
    expect(shardNumber(runId, 3)).toBe(1);
    const run = await call<{ sessionKey: string }>("GET", `/v1/runs/${runId}`, { token: ADMIN });
    expect(run.json.sessionKey).toBe(chat);
    for (const key of keys) {
      const found = await call<{ key: string }>("GET", `/v1/sessions/${encodeURIComponent(key)}`, {
        token: ADMIN,
      });
      expect(found.status, found.text).toBe(200);
    }
    // Search over the agent's sessions asks every shard.
    const indexed = () => rowsInEveryShard("SELECT 1 FROM search_message WHERE instr(text, ?) > 0", word);
    await driveUntil(
      keys,
      async () => ((await indexed()).length === 3 ? true : undefined),
      "the search rows",
    );
    const hits = await toolWithConfig(agentWide, "sessions_search", chat, { query: word });
    expect(hits.results.map((hit) => hit.sessionKey).sort()).toEqual([...keys].sort());

    // A delivery record in its session's shard: found by its id, and in the agent token's list.
    const target = keys[0] ?? "";
    const deliveryId = `dlv_route-${u}`;
    const record = {
      deliveryId,
      kind: "notice" as const,
      sessionKey: target,
      agentId: "public",
      target,
      status: "dismissed" as const,
      attempts: 0,
      createdAt: 1,
      updatedAt: 1,
    };
    await deliveryIndexUpsert(shardOf(target), record).run();
    // (GET /v1/deliveries/{id} then asks the session's object, which never had this one: the index lookup.)
    expect((await findDelivery(shards(), deliveryId))?.sessionKey).toBe(target);
    const listed = await call<{ deliveries: { deliveryId: string }[] }>(
      "GET",
      "/v1/deliveries?status=dismissed&kind=notice&limit=200",
      { token: AGENT_TOKENS.public },
    );
    expect(listed.json.deliveries.map((each) => each.deliveryId)).toContain(deliveryId);
    await shardOf(target).prepare("DELETE FROM delivery_index WHERE delivery_id = ?").bind(deliveryId).run();

    // Deletion: the session's rows leave its shard and lookups stop finding it.
    const removed = await call("DELETE", `/v1/sessions/${encodeURIComponent(target)}`, { token: ADMIN });
    expect(removed.status, removed.text).toBe(200);
    await driveUntil(
      [target],
      async () =>
        (await rowsInEveryShard("SELECT 1 FROM session_index WHERE session_key = ?", target)).length === 0
          ? true
          : undefined,
      "the deleted row",
    );
    expect((await call("GET", `/v1/sessions/${encodeURIComponent(target)}`, { token: ADMIN })).status).toBe(
      404,
    );
  });

  it("spawn walks: a child in another shard than its requester is listed, visible in its tree and killed", async () => {
    const u = uid();
    const requester = keyIn(0, `spawner-${u}`);
    await createSession({ agentId: "public", key: requester });
    const { child, runId } = await spawnOk(requester, { task: "look it up", agentId: "public" });
    expect(shardIndex(child)).toBe(PUBLIC_HOME);
    await waitRun(runId);
    const run = await call<{ sessionKey: string }>("GET", `/v1/runs/${runId}`, { token: ADMIN });
    expect(run.json.sessionKey).toBe(child);
    const listed = await driveUntil(
      [requester, child],
      async () => {
        const result = await subagents(requester, {});
        return result.recent.some((each) => each.sessionKey === child) ? result : undefined;
      },
      "the child in subagents",
    );
    expect(listed.recent.map((each) => each.runId)).toContain(runId);
    // The agent token's tree: the requester and its child, read over every shard.
    const tree = await call<{ sessions: { key: string; childSessions?: string[] }[] }>(
      "POST",
      "/v1/tools/sessions_list",
      { token: AGENT_TOKENS.public, body: {}, headers: { "X-Switchboard-Session": requester } },
    );
    expect(tree.status, tree.text).toBe(200);
    expect(tree.json.sessions.map((row) => row.key).sort()).toEqual([requester, child].sort());
    const killed = await subagents(requester, { action: "kill", target: "all" });
    expect(killed, JSON.stringify(killed)).not.toMatchObject({ status: "error" });
  });
});
