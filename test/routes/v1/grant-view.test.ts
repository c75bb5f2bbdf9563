import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  createSession,
  createSpawned,
  grantFor,
  importMessages,
  msg,
  openStream,
  session,
  sessionPath,
  uid,
} from "../../support";

describe("a grant sees no other session's key (SPEC §18)", () => {
  it("GET /v1/sessions/{key} of a sub-agent: no parent, no children, no key of another session", async () => {
    const parent = `agent:main:api:parent-${uid()}`;
    await createSession({ key: parent });
    const child = `agent:main:subagent:${crypto.randomUUID()}`;
    await createSpawned({ sessionKey: child, agentId: "main", spawnedBy: parent, parentSessionKey: parent });
    const grant = await grantFor(child, ["read"]);
    const operator = await call<Record<string, unknown>>("GET", sessionPath(child), { token: ADMIN });
    expect(operator.json.spawnedBy).toBe(parent);
    const seen = await call<Record<string, unknown>>("GET", sessionPath(child), { token: grant.token });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.json.sessionId).toBe(operator.json.sessionId);
    expect(seen.json).not.toHaveProperty("spawnedBy");
    expect(seen.json).not.toHaveProperty("parentSessionKey");
    expect(seen.text).not.toContain(parent);

    const grantConsole = await call("GET", `/console/fragments/sessions/${encodeURIComponent(child)}`, {
      token: grant.token,
    });
    expect(grantConsole.status, grantConsole.text).toBe(200);
    // The page breaks keys with <wbr/>: its last part names the parent alone.
    const parentName = parent.split(":").at(-1) ?? parent;
    expect(grantConsole.text).not.toContain(parentName);
    const operatorConsole = await call("GET", `/console/fragments/sessions/${encodeURIComponent(child)}`, {
      token: ADMIN,
    });
    expect(operatorConsole.text).toContain(parentName);
  });

  it("its event stream and history: other sessions' keys out of data, summaries and provenance, texts as written", async () => {
    const key = `agent:main:api:seen-${uid()}`;
    const sender = `agent:research:api:sender-${uid()}`;
    await createSession({ key });
    const grant = await grantFor(key, ["read", "events"]);
    const stream = await openStream(sessionPath(key, "/events"), { token: grant.token });
    expect(stream.status).toBe(200);
    expect((await stream.next()).event).toBe("ready");
    const operatorStream = await openStream(sessionPath(key, "/events"));
    await operatorStream.next();

    await importMessages(key, [
      {
        ...msg("m1", "user", `a note written by ${sender}`, Date.now()),
        provenance: { kind: "inter_session", sourceSessionKey: sender, sourceTool: "sessions_send" },
      },
    ]);
    const child = `agent:ops:subagent:${crypto.randomUUID()}`;
    await createSpawned({ sessionKey: child, agentId: "ops", spawnedBy: key, parentSessionKey: key });
    await session(key).childCreated(child, crypto.randomUUID());

    const operatorEvents = await operatorStream.until((event) => event.event === "child_spawned");
    expect(JSON.stringify(operatorEvents)).toContain(child);
    expect(JSON.stringify(operatorEvents)).toContain(sender);
    const events = await stream.until((event) => event.event === "child_spawned");
    const message = events.find((event) => event.event === "message");
    expect(message?.data).toMatchObject({ actor: { type: "agent" }, message: { role: "user" } });
    // The message's own text stays as written; its provenance and the event's actor lose the sender's key.
    expect(JSON.stringify(message?.data.message)).toContain(`a note written by ${sender}`);
    const withoutText = JSON.stringify({
      ...message?.data,
      message: { ...(message?.data.message as object), content: null },
    });
    expect(withoutText).not.toContain(sender);
    const spawned = events.at(-1);
    expect(JSON.stringify(spawned)).not.toContain(child);
    expect(spawned?.data.summary).toBe("spawned another session");
    await stream.close();
    await operatorStream.close();

    const history = await call<{ messages: { provenance?: Record<string, unknown> }[] }>(
      "GET",
      sessionPath(key, "/history"),
      { token: grant.token },
    );
    expect(history.status, history.text).toBe(200);
    expect(history.json.messages[0]?.provenance).toEqual({
      kind: "inter_session",
      sourceTool: "sessions_send",
    });
  });
});
