import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  getSession,
  type Invoked,
  type InvokeError,
  tool,
  toolWithConfig,
  uid,
  workerConfigWith,
} from "../support";

/** `POST /tools/invoke` as the operator acting for `requester`; `Body` is the answer expected. */
const invokeAs = <Body>(requester: string, body: Record<string, unknown>) =>
  call<Body>("POST", "/tools/invoke", { token: ADMIN, body: { sessionKey: requester, ...body } });

/** The card of a session never written: its agent's model, nothing else yet (SPEC §12). */
const noActivityLines = (key: string) => [
  "Switchboard 0.1.0",
  "Model: scripted/echo",
  "Tokens: 0 in / 0 out • context 0/128.0k • Compactions: 0",
  `Session: ${key} • no activity`,
  "Runtime: none yet • thinking default",
  "Run: idle",
  "Sub-agents: 0 active, 0 recent",
];

/** sessions_history's page of a session never written. */
const emptyPage = (sessionKey: string) => ({
  sessionKey,
  messages: [],
  truncated: false,
  droppedMessages: false,
  contentTruncated: false,
  contentRedacted: false,
  bytes: 2,
  hasMore: false,
  totalMessages: 0,
  pendingInputs: { items: [], total: 0 },
});

describe("/tools/invoke error types (OpenClaw's)", () => {
  it("not_found for a tool the caller may not use, tool_error for bad args, invalid_request for the envelope", async () => {
    const key = `agent:main:types-${uid()}`;
    const post = (token: string, body: unknown) =>
      call<InvokeError>("POST", "/tools/invoke", { token, body });
    const answers = [
      await post(AGENT_TOKENS.main, { tool: "sessions_teleport" }),
      await post(AGENT_TOKENS.ops, { tool: "agents_list" }),
      await invokeAs<InvokeError>(key, {
        tool: "sessions_history",
        args: { sessionKey: "current", limit: "ten" },
      }),
      await post(ADMIN, '{"tool": '),
      await invokeAs<InvokeError>(key, { args: {} }),
      await post(ADMIN, { tool: "sessions_list" }),
    ];
    const invalid = (message: unknown) => ({ ok: false, error: { type: "invalid_request", message } });
    expect(answers.map((answer) => [answer.status, answer.json])).toEqual([
      [404, { ok: false, error: { type: "not_found", message: "Tool not available: sessions_teleport" } }],
      [404, { ok: false, error: { type: "not_found", message: "Tool not available: agents_list" } }],
      [400, { ok: false, error: { type: "tool_error", message: expect.stringMatching(/^limit: /) } }],
      [400, invalid("request body is not valid JSON")],
      [400, invalid("tool required")],
      [400, invalid(expect.stringMatching(/^sessionKey required: operator tool calls/))],
    ]);
    // The /v1 routes keep their codes.
    const rest = await call<ApiError>("POST", "/v1/tools/sessions_teleport", { token: AGENT_TOKENS.main });
    expect([rest.status, rest.json.error.code]).toEqual([404, "tool_not_found"]);
    const restArgs = await call<ApiError>("POST", "/v1/tools/sessions_history", {
      token: AGENT_TOKENS.main,
      body: { sessionKey: "current", limit: "ten" },
    });
    expect([restArgs.status, restArgs.json.error.code]).toEqual([400, "bad_request"]);
  });
});

describe("session_status answers", () => {
  it("puts the card itself in content[0].text, with agentId and stateVersion in details", async () => {
    const key = `agent:research:card-${uid()}`;
    await createSession({ agentId: "research", key });
    const response = await invokeAs<Invoked<"session_status">>(key, { tool: "session_status" });
    expect(response.status).toBe(200);
    const { content, details } = response.json.result;
    expect(details).toEqual({
      ok: true,
      sessionKey: key,
      agentId: "research",
      changedModel: false,
      // Its one event so far: `created`.
      stateVersion: 1,
      statusText: expect.any(String),
    });
    expect(Object.keys(details)).toEqual([
      "ok",
      "sessionKey",
      "agentId",
      "changedModel",
      "stateVersion",
      "statusText",
    ]);
    expect(content).toEqual([{ type: "text", text: details.statusText }]);
    expect(details.statusText).toContain(`Session: ${key} • last activity just now\n`);
    // Every other tool keeps the JSON of its details.
    const listed = await invokeAs<Invoked<"agents_list">>(key, { tool: "agents_list" });
    expect(JSON.parse(listed.json.result.content[0]?.text ?? "")).toEqual(listed.json.result.details);
  });
});

describe("the requester's own session always exists (SPEC §12)", () => {
  it("answers an empty page and a no-activity card for an own or main session never written, without creating it", async () => {
    const own = `agent:main:fresh-${uid()}`;
    expect(await tool("sessions_history", own, { sessionKey: "current" })).toEqual(emptyPage(own));
    expect(await tool("sessions_history", own, { sessionKey: own })).toEqual(emptyPage(own));
    const card = await tool("session_status", own);
    expect(card).toEqual({
      ok: true,
      sessionKey: own,
      agentId: "main",
      changedModel: false,
      stateVersion: 0,
      statusText: noActivityLines(own).join("\n"),
    });

    // The agent's main session, asked for as `main` by that session itself (as an agent token does).
    const mainKey = `home-${uid()}`;
    const config = workerConfigWith((document) => {
      document.session.mainKey = mainKey;
    });
    const main = `agent:main:${mainKey}`;
    expect(await toolWithConfig(config, "sessions_history", main, { sessionKey: "main" })).toEqual(
      emptyPage(main),
    );
    const mainCard = await toolWithConfig(config, "session_status", main, { sessionKey: "main" });
    expect(mainCard).toMatchObject({ ok: true, sessionKey: main, agentId: "main", stateVersion: 0 });
    expect(mainCard.statusText).toContain(`Session: ${main} • no activity`);

    // Visibility first: the main session is outside a fresh session's tree; other missing keys stay errors.
    expect(await tool("sessions_history", own, { sessionKey: "main" })).toEqual({
      status: "forbidden",
      error: expect.stringContaining("tools.sessions.visibility=tree"),
    });
    const other = `agent:main:other-${uid()}`;
    expect(await tool("sessions_history", own, { sessionKey: other })).toEqual({
      status: "error",
      error: `Session not found: ${other}. Use the full session key from sessions_list.`,
    });
    // Reads are pure: nothing was created.
    for (const key of [own, main]) expect((await getSession<ApiError>(key)).status).toBe(404);
  });
});

describe("errors name only what the caller sent", () => {
  it("names the key the caller sent, or the resolved one, never a default", async () => {
    const own = `agent:main:named-${uid()}`;
    const missing = `agent:main:missing-${uid()}`;
    const status = await tool("session_status", own, { sessionKey: missing });
    expect(status).toEqual({
      status: "error",
      error: expect.stringContaining(`Session not found: ${missing}.`),
    });
    const history = await tool("sessions_history", own, { sessionKey: missing });
    expect(history).toEqual({
      status: "error",
      error: expect.stringContaining(`Session not found: ${missing}.`),
    });
    // No sessionKey sent: a model change on the never-written own session names that session.
    const unsent = await tool("session_status", own, { model: "scripted/echo" });
    expect(unsent).toEqual({
      status: "error",
      error: `Session ${own} has no activity yet; set its model once it has.`,
    });
    for (const answer of [status, history, unsent]) expect(answer.error).not.toContain("current");
  });
});
