import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, type ApiError, call, createSession, grantFor, uid } from "../support";

describe("console sign-in", () => {
  it("whoami: the operator, a grant with its session, 403 for agent tokens, 401 for a wrong token", async () => {
    const key = `agent:main:console-${uid()}`;
    await createSession({ key });
    expect((await call("GET", "/console/fragments/whoami", { token: ADMIN })).json).toEqual({
      kind: "operator",
    });
    const grant = (await grantFor(key, ["read"])).token;
    const who = await call("GET", "/console/fragments/whoami", { token: grant });
    expect(who.json).toEqual({ kind: "grant", sessionKey: key, displayKey: key, scopes: ["read"] });
    const agent = await call<ApiError>("GET", "/console/fragments/whoami", { token: AGENT_TOKENS.main });
    expect(agent.status).toBe(403);
    expect(agent.json.error.message).toMatch(/operator token or a session grant/);
    const wrong = await call<ApiError>("GET", "/console/fragments/whoami", { token: "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toMatch(/at |stack/i);
  });
});
