import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, call, createSession, grantFor, runToken, uid } from "../../support";

interface Listed {
  grantId: string;
  sessionKey: string;
  sessionId?: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
}

const list = (token: string) => call<{ grants: Listed[] }>("GET", "/v1/grants", { token });

describe("GET /v1/grants (SPEC §23)", () => {
  it("lists every grant to the operator, an agent token its own agent's, never a token", async () => {
    const mainKey = `agent:main:api:grants-list-${uid()}`;
    const researchKey = `agent:research:api:grants-list-${uid()}`;
    const main = await createSession({ key: mainKey });
    await createSession({ key: researchKey });
    const mainGrant = await grantFor(mainKey, ["read", "events"]);
    const researchGrant = await grantFor(researchKey, ["send"], AGENT_TOKENS.research);
    expect((await call("DELETE", `/v1/grants/${mainGrant.grantId}`, { token: ADMIN })).status).toBe(200);

    const all = await list(ADMIN);
    expect(all.status, all.text).toBe(200);
    const listed = all.json.grants.find((grant) => grant.grantId === mainGrant.grantId);
    expect(listed).toEqual({
      grantId: mainGrant.grantId,
      sessionKey: mainKey,
      sessionId: main.sessionId,
      scopes: ["read", "events"],
      createdAt: expect.any(Number),
      expiresAt: expect.any(Number),
      revokedAt: expect.any(Number),
    });
    expect(all.json.grants.map((grant) => grant.grantId)).toContain(researchGrant.grantId);
    // Newest first.
    const created = all.json.grants.map((grant) => grant.createdAt);
    expect(created).toEqual([...created].sort((a, b) => b - a));

    const mine = await list(AGENT_TOKENS.main);
    expect(mine.status).toBe(200);
    const ids = mine.json.grants.map((grant) => grant.grantId);
    expect(ids).toContain(mainGrant.grantId);
    expect(ids).not.toContain(researchGrant.grantId);
    expect(mine.json.grants.every((grant) => grant.sessionKey.startsWith("agent:main:"))).toBe(true);

    for (const answer of [all, mine]) {
      for (const grant of [mainGrant, researchGrant]) {
        expect(answer.text).not.toContain(grant.token);
        expect(answer.text).not.toContain(grant.token.split(".")[1]);
      }
      expect(answer.text).not.toMatch(/secret|hash/i);
    }
  });

  it("refuses a grant token and a run token (403)", async () => {
    const key = `agent:main:api:grants-list-${uid()}`;
    await createSession({ key });
    const grant = await grantFor(key, ["read", "send", "events"]);
    expect((await list(grant.token)).status).toBe(403);
    expect((await list(await runToken({ sessionKey: key }))).status).toBe(403);
    expect((await call("GET", "/v1/grants")).status).toBe(401);
  });
});
