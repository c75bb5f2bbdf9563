import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SendRecordRequest } from "../../src/session/api";
import { toolContext } from "../../src/tools/context";
import { executeToolCall } from "../../src/tools/invoke";
import type { ToolContext } from "../../src/tools/types";
import { createSession, createSpawned, requesterFor, uid, workerConfig } from "../support";

/**
 * A tool context whose requester's stub refuses recordSend, with a recordSend of its own that counts its
 * calls: as inside the requester's object, where a run's tools call their object directly (issue 29).
 */
function ownContext(requesterKey: string) {
  const base = toolContext(env, workerConfig(), requesterFor(requesterKey));
  const direct: SendRecordRequest[] = [];
  const ctx: ToolContext = {
    ...base,
    session: (sessionKey) => {
      const stub = base.session(sessionKey);
      if (sessionKey !== requesterKey) return stub;
      return new Proxy(stub, {
        get: (target, property) => {
          if (property === "recordSend") throw new Error("recordSend through a stub to the requester itself");
          return Reflect.get(target, property);
        },
      });
    },
    recordSend: (send) => {
      direct.push(send);
      return base.recordSend(send);
    },
  };
  return { ctx, direct };
}

describe("a tool records its handoff in its requester's object through the context, not a stub to itself", () => {
  it("sessions_send with an idempotencyKey", async () => {
    const requester = (await createSession({ agentId: "main", key: `agent:main:own-send-${uid()}` })).key;
    // Visibility is `tree`: the requester sends to a session it spawned.
    const target = `agent:main:subagent:${crypto.randomUUID()}`;
    await createSpawned({
      sessionKey: target,
      agentId: "main",
      spawnedBy: requester,
      parentSessionKey: requester,
    });
    const { ctx, direct } = ownContext(requester);
    const sent = await executeToolCall(ctx, "sessions_send", {
      sessionKey: target,
      message: "hello",
      timeoutSeconds: 0,
      idempotencyKey: "once",
    });
    expect(sent).toMatchObject({ ok: true, details: { status: "accepted" } });
    expect(direct.map((send) => send.idempotencyKey)).toEqual(["sessions_send:once"]);
  });

  it("sessions_spawn with an idempotencyKey", async () => {
    const requester = (await createSession({ agentId: "main", key: `agent:main:own-spawn-${uid()}` })).key;
    const { ctx, direct } = ownContext(requester);
    const spawned = await executeToolCall(ctx, "sessions_spawn", { task: "count", idempotencyKey: "once" });
    expect(spawned).toMatchObject({ ok: true, details: { status: "accepted" } });
    expect(direct.map((send) => send.idempotencyKey)).toEqual(["sessions_spawn:once"]);
  });
});
