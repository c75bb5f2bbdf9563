import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document";
import { ADMIN, call, callTool, importMessages, msg, sessionPath, uid, waitRun } from "../support";
import { responseSchema, schemaErrors } from "./schema-check";

// A client that trusts the document (a generated one, a validator in front of it) must find every real
// answer described by it: these are answered by the Worker over HTTP and checked against the schema the
// served /openapi.json gives for that route and status.
const doc = openApiDocument();

/** The answer is valid against what the document says `method path` answers with its status. */
async function expectDocumented(
  answer: Promise<{ status: number; json: unknown; text: string }>,
  path: string,
  method: "get" | "post",
) {
  const { status, json, text } = await answer;
  expect(status, text).toBeLessThan(300);
  expect(schemaErrors(doc, responseSchema(doc, path, method, status), json), text).toEqual([]);
  return json;
}

describe("live answers match the documented response schemas", () => {
  it("sessions_list, sessions_history, session_status, chat.send's 202, the run, the history route", async () => {
    const key = `agent:main:openapi-live-${uid()}`;
    const created = await call("POST", "/v1/sessions", {
      token: ADMIN,
      body: { key, label: `live-${uid()}`, displayName: "Live answers" },
    });
    expect(created.status, created.text).toBe(201);
    await importMessages(key, [
      msg("m1", "user", "Deploy with OPENAI_API_KEY=sk-1234567890abcdef1234 please", 1767225600000),
      msg("m2", "assistant", "<think>check</think>Deployed.", 1767225601000),
    ]);

    const list = await expectDocumented(
      callTool("sessions_list", key, {
        includeLastMessage: true,
        includeDerivedTitles: true,
        messageLimit: 2,
      }),
      "/v1/tools/sessions_list",
      "post",
    );
    expect(list).toMatchObject({ sessions: expect.any(Array) });
    await expectDocumented(
      callTool("sessions_history", key, { sessionKey: key }),
      "/v1/tools/sessions_history",
      "post",
    );
    await expectDocumented(callTool("session_status", key, {}), "/v1/tools/session_status", "post");
    // A failure is a documented result too.
    await expectDocumented(
      callTool("sessions_history", key, { sessionKey: `agent:main:missing-${uid()}` }),
      "/v1/tools/sessions_history",
      "post",
    );

    const accepted = (await expectDocumented(
      call("POST", sessionPath(key, "/messages"), { token: ADMIN, body: { text: "ping" } }),
      "/v1/sessions/{key}/messages",
      "post",
    )) as { runId: string };
    await expectDocumented(
      call("POST", `/v1/runs/${accepted.runId}/wait`, { token: ADMIN, body: { timeoutMs: 10_000 } }),
      "/v1/runs/{runId}/wait",
      "post",
    );
    await waitRun(accepted.runId);
    await expectDocumented(
      call("GET", `/v1/runs/${accepted.runId}`, { token: ADMIN }),
      "/v1/runs/{runId}",
      "get",
    );
    await expectDocumented(
      call("GET", sessionPath(key, "/history?limit=5&offset=0&includeTools=true"), { token: ADMIN }),
      "/v1/sessions/{key}/history",
      "get",
    );
    await expectDocumented(call("GET", sessionPath(key), { token: ADMIN }), "/v1/sessions/{key}", "get");
    await expectDocumented(
      callTool("sessions_search", key, { query: "deployed" }),
      "/v1/tools/sessions_search",
      "post",
    );
    await expectDocumented(callTool("agents_list", key, {}), "/v1/tools/agents_list", "post");
    await expectDocumented(callTool("subagents", key, { action: "list" }), "/v1/tools/subagents", "post");
  });
});
