import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { toolRegistry } from "../../src/tools/registry";
import {
  AGENT_TOKENS,
  createSession,
  createSpawned,
  driveUntil,
  findRun,
  importMessages,
  msg,
  runToken,
  tool,
  uid,
  waitRun,
} from "../support";
import { connectMcp, detailsOf, type JsonRpcError, listedNames, rawMcp } from "../support/mcp";

/**
 * A main-agent requester with a child it spawned (holding two messages) and a sibling it did not
 * spawn; the client acts as the requester with the main agent's token (SPEC §3: a session of its own).
 */
async function world() {
  const u = uid();
  const keys = {
    requester: `agent:main:mcp-r-${u}`,
    child: `agent:main:api:mcp-c-${u}`,
    sibling: `agent:main:api:mcp-s-${u}`,
  };
  await createSession({ agentId: "main", key: keys.requester });
  await createSpawned({ sessionKey: keys.child, agentId: "main", spawnedBy: keys.requester });
  await createSession({ agentId: "main", key: keys.sibling });
  const now = Date.now();
  await importMessages(keys.child, [
    msg("q1", "user", "question", now),
    msg("a1", "assistant", "answer", now + 1),
  ]);
  const client = await connectMcp(AGENT_TOKENS.main, { "X-Switchboard-Session": keys.requester });
  return { u, keys, client };
}

/** Details with the status card's "last activity" age masked: it moves with the clock between calls. */
const withoutClock = (details: unknown) =>
  JSON.parse(JSON.stringify(details).replace(/last activity (just now|\d+ \w+ ago)/g, "last activity -"));

describe("MCP tools/call", () => {
  it("runs each read tool exactly as /v1/tools does, in the SPEC §5.0 envelope", async () => {
    const { u, keys, client } = await world();
    const cases: [string, Record<string, unknown>][] = [
      ["sessions_list", { search: u }],
      ["sessions_history", { sessionKey: keys.child }],
      ["session_status", { sessionKey: keys.child }],
      ["agents_list", {}],
    ];
    for (const [name, args] of cases) {
      const details = detailsOf(await client.callTool({ name, arguments: args }));
      expect(withoutClock(details), name).toEqual(withoutClock(await tool(name, keys.requester, args)));
    }

    const list = detailsOf<"sessions_list">(
      await client.callTool({ name: "sessions_list", arguments: { search: u } }),
    );
    expect(list.sessions.map((row: { key: string }) => row.key).sort()).toEqual(
      [keys.requester, keys.child].sort(),
    );
    const history = detailsOf<"sessions_history">(
      await client.callTool({ name: "sessions_history", arguments: { session_key: keys.child } }),
    );
    expect(history.messages.map((message: { id: string }) => message.id)).toEqual(["q1", "a1"]);
    const agents = detailsOf<"agents_list">(await client.callTool({ name: "agents_list", arguments: {} }));
    expect(agents.agents.map((agent: { id: string }) => agent.id)).toEqual(["main", "research", "ops"]);
  });

  it("sessions_send delivers to the child, whose run replies", async () => {
    const { keys, client } = await world();
    const result = await client.callTool({
      name: "sessions_send",
      arguments: { sessionKey: keys.child, message: "hello over mcp", timeoutSeconds: 0 },
    });
    const sent = detailsOf<"sessions_send">(result);
    expect(sent).toEqual({
      runId: expect.any(String),
      status: "accepted",
      sessionKey: keys.child,
      targetDisposition: "queued",
      delivery: { status: "pending", mode: "announce" },
    });
    await driveUntil([keys.child], () => findRun(sent.runId), "the MCP send to arrive");
    expect(await waitRun(sent.runId)).toMatchObject({ status: "ok", reply: "Got it: hello over mcp" });
  });

  it.runIf(["sessions_spawn", "subagents", "sessions_yield"].every((name) => name in toolRegistry))(
    "the sub-agent tools: spawn, then subagents lists the child; yield outside a run is an error",
    async () => {
      const { keys, client } = await world();
      const spawned = detailsOf<"sessions_spawn">(
        await client.callTool({ name: "sessions_spawn", arguments: { task: "summarize over mcp" } }),
      );
      expect(spawned).toMatchObject({
        status: "accepted",
        childSessionKey: expect.stringMatching(/^agent:main:subagent:/),
      });
      const listed = detailsOf(await client.callTool({ name: "subagents", arguments: { action: "list" } }));
      expect(listed).toMatchObject({ status: "ok", requesterSessionKey: keys.requester, total: 2 });
      // The world's own child and the one just spawned.
      expect(JSON.stringify(listed)).toContain(spawned.childSessionKey);
      expect(JSON.stringify(listed)).toContain(keys.child);
      const yielded = await client.callTool({ name: "sessions_yield", arguments: {} });
      expect(yielded.isError).toBe(true);
      expect(detailsOf(yielded).error).toContain("run token");
    },
  );

  it("every listed tool is callable: none answers with a protocol error", async () => {
    const { client } = await world();
    for (const name of await listedNames(client)) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.content, name).toEqual([{ type: "text", text: expect.any(String) }]);
    }
  });

  it("a forbidden call is an isError result that names the setting", async () => {
    const { keys, client } = await world();
    const result = await client.callTool({
      name: "sessions_history",
      arguments: { sessionKey: keys.sibling },
    });
    const details = detailsOf(result);
    expect(result.isError).toBe(true);
    expect(details.status).toBe("forbidden");
    expect(details.error).toContain("tools.sessions.visibility");
  });

  it("a lookup failure is an isError result with status error", async () => {
    const { u, client } = await world();
    const result = await client.callTool({
      name: "session_status",
      arguments: { sessionKey: `agent:main:mcp-missing-${u}` },
    });
    expect(result.isError).toBe(true);
    expect(detailsOf(result).status).toBe("error");
  });

  it("invalid arguments are an isError result naming the field", async () => {
    const { keys, client } = await world();
    const missing = await client.callTool({ name: "sessions_history", arguments: {} });
    expect(missing).toEqual({
      content: [{ type: "text", text: "Invalid arguments for sessions_history: sessionKey required" }],
      isError: true,
    });
    const wrongType = await client.callTool({
      name: "sessions_history",
      arguments: { sessionKey: keys.child, limit: "ten" },
    });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.content).toEqual([{ type: "text", text: expect.stringMatching(/: limit: /) }]);
  });

  it("malformed tools/call params are -32602 naming the field, the message without a code prefix", async () => {
    const cases: [unknown, string][] = [
      [{ arguments: {} }, "name required"],
      [{ name: 7 }, "name: must be a string, not a number"],
      [{ name: "agents_list", arguments: [] }, "arguments: must be an object, not an array"],
    ];
    for (const [params, message] of cases) {
      const response = await rawMcp(AGENT_TOKENS.main, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params,
      });
      expect((await response.json<JsonRpcError>()).error).toEqual({ code: ErrorCode.InvalidParams, message });
    }
  });

  it("an unknown tool, or one the caller may not use, is a protocol error naming it", async () => {
    const { client } = await world();
    const unknown = client.callTool({ name: "no_such_tool", arguments: {} });
    // The SDK's client prefixes the code itself: the server's message must not carry it already.
    await expect(unknown).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: "MCP error -32602: Tool not available: no_such_tool",
    });

    const ops = await connectMcp(AGENT_TOKENS.ops);
    await expect(ops.callTool({ name: "agents_list", arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining("Tool not available: agents_list"),
    });

    const leaf = await connectMcp(
      await runToken({ agentId: "main", sessionKey: `agent:main:subagent:mcp-${uid()}`, depth: 1 }),
    );
    await expect(leaf.callTool({ name: "sessions_list", arguments: {} })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringContaining("Tool not available: sessions_list"),
    });
  });
});
