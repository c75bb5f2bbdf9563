import { describe, expect, it } from "vitest";
import { ADMIN, type ApiError, call, createSession, sessionPath, uid } from "../../support";

describe("PATCH /v1/sessions/{key} archived (the console's archive and restore)", () => {
  it("archives and restores this generation only", async () => {
    const key = `agent:main:console-${uid()}`;
    const created = await createSession({ key });
    const stale = await call<ApiError>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: true, expectedSessionId: "not-this-one" },
    });
    expect(stale.status).toBe(409);
    const archived = await call<{ archived?: boolean }>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: true, expectedSessionId: created.sessionId },
    });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.json.archived).toBe(true);
    const unnamed = await call<ApiError>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: false },
    });
    expect(unnamed.status).toBe(400);
    expect(unnamed.json.error.message).toMatch(/^expectedSessionId: /);
    const restored = await call<{ archived?: boolean }>("PATCH", sessionPath(key), {
      token: ADMIN,
      body: { archived: false, expectedSessionId: created.sessionId },
    });
    expect(restored.json.archived).toBe(false);
  });
});
