import { describe, expect, it } from "vitest";
import { ADMIN, call } from "../helpers";

describe("smoke", () => {
  it("creates, imports and lists", async () => {
    expect((await call("GET", "/healthz")).json).toEqual({ ok: true, version: "0.1.0" });
    const created = await call("POST", "/v1/sessions", {
      token: ADMIN,
      body: { agentId: "main", key: "discord:group:dev", label: "dev" },
    });
    expect(created.status).toBe(201);
    expect(created.json.key).toBe("agent:main:discord:group:dev");
    const imported = await call(
      "POST",
      `/v1/sessions/${encodeURIComponent("agent:main:discord:group:dev")}/transcript`,
      {
        token: ADMIN,
        body: {
          messages: [
            { id: "m1", role: "user", content: "hello there", timestamp: Date.now() - 1000 },
            {
              id: "m2",
              role: "assistant",
              content: "Hi <think>x</think> sk-1234567890abcdef1234",
              timestamp: Date.now(),
            },
          ],
        },
      },
    );
    expect(imported.json).toEqual({ imported: 2, skipped: 0, totalMessages: 2 });
    const listed = await call("POST", "/tools/invoke", {
      token: ADMIN,
      body: {
        tool: "sessions_list",
        args: { includeLastMessage: true, includeDerivedTitles: true },
        sessionKey: "agent:main:discord:group:dev",
      },
    });
    console.log(JSON.stringify(listed.json, null, 1));
    const history = await call("POST", "/v1/tools/sessions_history", {
      token: ADMIN,
      body: { sessionKey: "current" },
      headers: { "X-Switchboard-Session": "agent:main:discord:group:dev" },
    });
    console.log(JSON.stringify(history.json, null, 1));
    const status = await call("POST", "/v1/tools/session_status", {
      token: "test-main-token",
      body: { sessionKey: "agent:main:discord:group:dev" },
    });
    console.log(JSON.stringify(status.json, null, 1));
  });
});
