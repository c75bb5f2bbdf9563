import { describe, expect, it } from "vitest";
import { isToolFailure } from "../../packages/client/src/index";
import { ADMIN, AGENT_TOKENS, createSpawned, uid } from "../support";
import { lastRoute, testClient } from "./fixtures";

/** A requester session of `main` and a child it spawned (tree visibility lets it see and send there). */
async function requesterAndChild() {
  const u = uid();
  const requester = `agent:main:client-r-${u}`;
  const child = `agent:main:client-c-${u}`;
  const { client: admin } = testClient({ token: ADMIN });
  await admin.createSession({ key: requester, displayName: `Requester ${u}` });
  await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: requester, label: `kid-${u}` });
  const { client, requests } = testClient({ token: ADMIN, session: requester });
  return { u, requester, child, client, requests };
}

describe("client tool methods", () => {
  it("sessionsList: POST /v1/tools/sessions_list as the named requester", async () => {
    const { u, requester, child, client, requests } = await requesterAndChild();
    const result = await client.sessionsList({ search: u, includeDerivedTitles: true });
    expect(lastRoute(requests)).toBe("POST /v1/tools/sessions_list");
    expect(requests.at(-1)?.headers.get("X-Switchboard-Session")).toBe(requester);
    expect(result.count).toBe(2);
    expect(result.sessions.map((row) => row.key).sort()).toEqual([child, requester].sort());
  });

  it("sessions: patch and delete a visible session; sessionsList pages with offset and filters archived", async () => {
    const { u, requester, child, client, requests } = await requesterAndChild();
    const [row] = (await client.sessionsList({ label: `kid-${u}` })).sessions;
    const expectedSessionId = row?.sessionId ?? "";
    const patched = await client.sessions({
      action: "patch",
      sessionKey: child,
      archived: true,
      expectedSessionId,
    });
    expect(lastRoute(requests)).toBe("POST /v1/tools/sessions");
    expect(patched).toEqual({ status: "updated", sessionKey: child, updated: ["archived"] });
    const archived = await client.sessionsList({ archived: true });
    expect(archived).toMatchObject({ count: 1, hasMore: false, limitApplied: 50 });
    expect(archived.sessions[0]).toMatchObject({ key: child, archived: true });
    const firstOfAll = await client.sessionsList({ archived: "all", limit: 1 });
    expect(firstOfAll).toMatchObject({ count: 1, hasMore: true, nextOffset: 1 });
    const rest = await client.sessionsList({ archived: "all", limit: 1, offset: firstOfAll.nextOffset ?? 0 });
    expect([firstOfAll.sessions[0]?.key, rest.sessions[0]?.key].sort()).toEqual([child, requester].sort());
    const deleted = await client.sessions({ action: "delete", sessionKey: child, expectedSessionId });
    expect(deleted).toEqual({ status: "deleted", sessionKey: child });
  });

  it("sessionsHistory: the page made safe; an unknown session is a result, not a throw", async () => {
    const { requester, client, requests } = await requesterAndChild();
    const { client: admin } = testClient({ token: ADMIN });
    await admin.importTranscript(requester, [
      {
        id: "h1",
        role: "user",
        content: "key OPENAI_API_KEY=sk-1234567890abcdef1234",
        timestamp: 1_763_700_000_000,
      },
    ]);
    const page = await client.sessionsHistory({ sessionKey: "current" });
    expect(lastRoute(requests)).toBe("POST /v1/tools/sessions_history");
    if (isToolFailure(page)) throw new Error(page.error);
    expect(page).toMatchObject({ sessionKey: requester, totalMessages: 1, contentRedacted: true });
    expect(page.messages[0]?.content).toBe("key OPENAI_API_KEY=sk-123…1234");

    const missing = await client.sessionsHistory({ sessionKey: `agent:main:nothing-${uid()}` });
    expect(isToolFailure(missing)).toBe(true);
    expect(missing).toMatchObject({ status: "error", error: expect.stringContaining("not found") });
  });

  it("sessionsSend: waits for the reply; refusals come back as results", async () => {
    const { child, requester, client, requests } = await requesterAndChild();
    const sent = await client.sessionsSend({ sessionKey: child, message: "hello child", timeoutSeconds: 10 });
    expect(lastRoute(requests)).toBe("POST /v1/tools/sessions_send");
    expect(sent).toMatchObject({ status: "ok", reply: "Got it: hello child", sessionKey: child });

    const selfSend = await client.sessionsSend({ sessionKey: requester, message: "me", timeoutSeconds: 5 });
    expect(selfSend).toMatchObject({ status: "error", error: expect.stringContaining("itself") });
  });

  it("sessionStatus and agentsList", async () => {
    const { requester, client, requests } = await requesterAndChild();
    const card = await client.sessionStatus();
    expect(lastRoute(requests)).toBe("POST /v1/tools/session_status");
    expect(card).toMatchObject({ ok: true, sessionKey: requester, changedModel: false });
    if (isToolFailure(card)) throw new Error(card.error);
    expect(card.statusText).toContain(requester);

    const agents = await client.agentsList();
    expect(lastRoute(requests)).toBe("POST /v1/tools/agents_list");
    expect(agents.requester).toBe("main");
    expect(agents.agents.map((agent) => agent.id)).toEqual(
      expect.arrayContaining(["main", "research", "ops"]),
    );
  });

  it("tool(name, args) reaches any tool; invoke returns OpenClaw's envelope", async () => {
    const { client: main, requests } = testClient({ token: AGENT_TOKENS.main });
    const details = await main.tool<{ requester: string }>("agents_list");
    expect(lastRoute(requests)).toBe("POST /v1/tools/agents_list");
    expect(details.requester).toBe("main");

    const envelope = await main.invoke<{ requester: string }>("agents_list");
    expect(lastRoute(requests)).toBe("POST /tools/invoke");
    expect(JSON.parse(requests.at(-1)?.body ?? "{}")).toEqual({ tool: "agents_list", args: {} });
    expect(envelope.details.requester).toBe("main");
    expect(JSON.parse(envelope.content[0]?.text ?? "{}")).toEqual(envelope.details);
  });

  it("sessionsSpawn, subagents and sessionsYield", async () => {
    const { requester, client, requests } = await requesterAndChild();
    const spawned = await client.sessionsSpawn({
      task: "count to three",
      agentId: "research",
      label: "counter",
    });
    expect(lastRoute(requests)).toBe("POST /v1/tools/sessions_spawn");
    expect(spawned).toMatchObject({
      status: "accepted",
      childSessionKey: expect.stringMatching(/^agent:research:subagent:/),
    });

    const listed = await client.subagents({ action: "list" });
    expect(lastRoute(requests)).toBe("POST /v1/tools/subagents");
    expect(listed).toMatchObject({ status: "ok", action: "list", requesterSessionKey: requester });

    // Outside a run there is nothing to yield: a result, not an HTTP error.
    const yielded = await client.sessionsYield();
    expect(lastRoute(requests)).toBe("POST /v1/tools/sessions_yield");
    expect(yielded).toMatchObject({ status: "error" });
  });
});
