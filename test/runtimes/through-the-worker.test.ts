import { describe, expect, it } from "vitest";
import { verifySignatureHeader } from "../../src/channels/signature";
import {
  ADMIN,
  call,
  createSession,
  createSpawned,
  getRun,
  type Invoked,
  modelCalls,
  sendMessage,
  toolResultJson,
  transcript,
  uid,
  waitRun,
  webhookAgentSecret,
  webhookCalls,
} from "../support";

/** What the coding profile grants, as this build serves it (sorted, as runs offer them). */
// SPEC §5.9's coding profile, sorted as the run offers them.
const CODING_TOOLS = [
  "agents_list",
  "agents_wait",
  "cron",
  "session_status",
  "sessions",
  "sessions_history",
  "sessions_list",
  "sessions_search",
  "sessions_send",
  "sessions_spawn",
  "sessions_yield",
  "subagents",
];
const MESSAGING_TOOLS = [
  "session_status",
  "sessions",
  "sessions_history",
  "sessions_list",
  "sessions_search",
  "sessions_send",
];

/** The recorded model requests whose first user message is `text` (tests use unique texts). */
async function userTurnRequests(agentId: string, text: string) {
  const all = await modelCalls(agentId);
  return all.filter((request) =>
    request.json?.messages?.some((message) => message.role === "user" && message.content === text),
  );
}

describe("openai runtime through the Worker (model-tools-rec: coding profile)", () => {
  it("offers exactly the run's tools, runs the call as the run's session, sums usage, stores every step", async () => {
    const u = uid();
    const key = `agent:model-tools-rec:tools-${u}`;
    await createSession({ agentId: "model-tools-rec", key, label: `own-${u}` });
    // What the run's session may see under `tree`: itself and what it spawned, not its siblings.
    const child = `agent:model-tools-rec:subagent:${crypto.randomUUID()}`;
    await createSpawned({
      sessionKey: child,
      agentId: "model-tools-rec",
      spawnedBy: key,
      spawnDepth: 1,
      label: `child-${u}`,
    });
    await createSession({ agentId: "model-tools-rec", key: `agent:model-tools-rec:sibling-${u}` });
    await createSession({ agentId: "main", key: `agent:main:other-${u}` });

    // The fake model calls sessions_list with the user message as its arguments.
    const text = JSON.stringify({ search: u });
    const runId = await sendMessage(key, text);
    const result = await waitRun(runId);
    expect(result.status).toBe("ok");

    const requests = await userTurnRequests("model-tools-rec", text);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.json.model).toBe("fake-model");
      expect(request.json.tools?.map((tool) => tool.function.name)).toEqual(CODING_TOOLS);
      expect(request.json.tools?.every((tool) => tool.type === "function")).toBe(true);
    }
    const listSpec = requests[0]?.json.tools?.find((tool) => tool.function.name === "sessions_list");
    expect(listSpec?.function.parameters).toMatchObject({ type: "object", properties: { search: {} } });
    // The system prompt (SPEC §20): the agent's instructions, then the run context naming the session.
    expect(requests[0]?.json.messages).toEqual([
      {
        role: "system",
        content: expect.stringMatching(
          new RegExp(
            `^You are the tools agent\\. Use sessions_list when asked\\.\n\n## Run context \\(written by Switchboard\\)\nSession: ${key} \\(`,
          ),
        ),
      },
      { role: "user", content: text },
    ]);
    expect(requests[1]?.json.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);

    const messages = await transcript(key);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const [, call1, toolResult, answer] = messages;
    expect(call1?.content).toEqual([
      { type: "toolCall", id: "call_1", name: "sessions_list", arguments: { search: u } },
    ]);
    expect(toolResult).toMatchObject({ toolCallId: "call_1", toolName: "sessions_list", runId });
    const listed = toolResultJson(toolResult, "sessions_list");
    // Visibility of the run's own session: itself and its child, never the sibling or another agent's.
    expect(listed.count).toBe(2);
    expect(listed.sessions.map((row) => row.key).sort()).toEqual([child, key].sort());
    expect(answer?.content).toEqual([{ type: "text", text: `tool said: ${JSON.stringify(listed)}` }]);
    expect(result.reply).toBe(`tool said: ${JSON.stringify(listed)}`);
    // Two model rounds of 10 + 5 tokens each.
    expect((await getRun(runId)).usage).toEqual({ input: 20, output: 10, total: 30 });
  });
});

describe("openai runtime with the messaging profile (model-tools-msg)", () => {
  it("offers only messaging tools; a call to a tool outside them is refused as a tool result", async () => {
    const u = uid();
    const key = `agent:model-tools-msg:tools-${u}`;
    await createSession({ agentId: "model-tools-msg", key });
    const text = `which agents? ${u}`;
    const runId = await sendMessage(key, text);
    expect((await waitRun(runId)).status).toBe("ok");
    const requests = await userTurnRequests("model-tools-msg", text);
    expect(requests).toHaveLength(2);
    expect(requests[0]?.json.tools?.map((tool) => tool.function.name)).toEqual(MESSAGING_TOOLS);
    const messages = await transcript(key);
    const refused = { status: "error", error: "Tool not available: agents_list" };
    expect(
      messages.map((message) => [
        message.role,
        message.role === "toolResult" ? toolResultJson(message) : message.content,
      ]),
    ).toEqual([
      ["user", text],
      ["assistant", [{ type: "toolCall", id: "call_1", name: "agents_list", arguments: { text } }]],
      ["toolResult", refused],
      ["assistant", [{ type: "text", text: `tool said: ${JSON.stringify(refused)}` }]],
    ]);
  });
});

describe("webhook runtime, synchronous answer (hook-sync-rec)", () => {
  it("posts the signed run with its tools and a run token that acts as exactly that session", async () => {
    const u = uid();
    const key = `agent:hook-sync-rec:hook-${u}`;
    const other = `agent:hook-sync-rec:other-${u}`;
    const session = await createSession({ agentId: "hook-sync-rec", key });
    await createSession({ agentId: "hook-sync-rec", key: other });
    const runId = await sendMessage(key, `hello hook ${u}`);
    expect(await waitRun(runId)).toMatchObject({ status: "ok", reply: `webhook got: hello hook ${u}` });
    expect((await getRun(runId)).usage).toEqual({ input: 4, output: 2, total: 6 });

    const posts = (await webhookCalls("hook-sync-rec")).filter((post) => post.json?.sessionKey === key);
    expect(posts).toHaveLength(1);
    const post = posts[0];
    if (!post) throw new Error("no webhook post");
    expect(post.method).toBe("POST");
    expect(
      await verifySignatureHeader(
        await webhookAgentSecret("hook-sync-rec"),
        post.headers["x-switchboard-signature"],
        post.body,
      ),
    ).toBe(true);
    const message = {
      id: `in:${runId}`,
      role: "user",
      content: `hello hook ${u}`,
      provenance: { kind: "external_user" },
      timestamp: expect.any(Number),
      runId,
    };
    expect(post.json).toEqual({
      runId,
      agentId: "hook-sync-rec",
      sessionKey: key,
      sessionId: session.sessionId,
      message,
      history: [],
      attachments: [],
      provenance: { kind: "external_user" },
      // The whole system prompt a model would get (SPEC §20): this agent has no instructions of its own.
      system: expect.stringMatching(
        new RegExp(`^## Run context \\(written by Switchboard\\)\nSession: ${key} \\(`),
      ),
      tools: expect.any(Array),
      runToken: expect.stringMatching(/\S{20,}/),
    });
    expect(post.json.tools.map((tool) => tool.name)).toEqual(CODING_TOOLS);
    expect(post.json.tools[0]).toEqual({
      name: "agents_list",
      description: expect.any(String),
      parameters: expect.objectContaining({ type: "object" }),
    });

    const runToken: string = post.json.runToken;
    const status = await call<Invoked<"session_status">>("POST", "/tools/invoke", {
      token: runToken,
      body: { tool: "session_status" },
    });
    expect(status.status, status.text).toBe(200);
    expect(status.json.result.details).toMatchObject({ ok: true, sessionKey: key });
    const own = await call<Invoked<"sessions_list">>("POST", "/tools/invoke", {
      token: runToken,
      body: { tool: "sessions_list", args: { search: u }, sessionKey: key },
    });
    expect(own.status).toBe(200);
    // As that session, under `tree`: only itself, not its sibling.
    expect(own.json.result.details.sessions.map((row) => row.key)).toEqual([key]);
    for (const named of [{ sessionKey: other }, { sessionKey: "main" }]) {
      const refused = await call("POST", "/tools/invoke", {
        token: runToken,
        body: { tool: "session_status", ...named },
      });
      expect(refused.status, JSON.stringify(named)).toBe(403);
    }
    const byHeader = await call("POST", "/tools/invoke", {
      token: runToken,
      body: { tool: "session_status" },
      headers: { "X-Switchboard-Session": other },
    });
    expect(byHeader.status).toBe(403);
    // A run token is for tools and its own run, not the operator API.
    expect((await call("GET", `/v1/sessions/${encodeURIComponent(key)}`, { token: runToken })).status).toBe(
      403,
    );
    expect((await call("GET", `/v1/runs/${runId}`, { token: runToken })).status).toBe(200);
    // The same history grows: a second run sees the first exchange.
    const second = await sendMessage(key, "again", { token: ADMIN });
    expect((await waitRun(second)).reply).toBe("webhook got: again");
    const secondPost = (await webhookCalls("hook-sync-rec")).find((p) => p.json?.runId === second);
    expect(secondPost?.json.history.map((m) => [m.role, m.content])).toEqual([
      ["user", `hello hook ${u}`],
      ["assistant", [{ type: "text", text: `webhook got: hello hook ${u}` }]],
    ]);
    expect(secondPost?.json.runToken).not.toBe(runToken);
  });
});
