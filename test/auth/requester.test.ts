import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Identity } from "../../src/auth/identity";
import { resolveRequester } from "../../src/auth/requester";
import { parseConfig } from "../../src/config/load";
import type { SwitchboardConfig } from "../../src/config/schema";
import { indexShards } from "../../src/index-db/shards";

const parsed = parseConfig(
  JSON.stringify({
    agents: { list: [{ id: "main" }, { id: "research" }, { id: "ops", sandbox: true }] },
  }),
);
if (!parsed.ok) throw new Error(parsed.error);
const config: SwitchboardConfig = parsed.config;

const operator: Identity = { kind: "operator" };
const mainAgent: Identity = { kind: "agent", agentId: "main" };
const runIdentity = (sessionKey: string, agentId = "main"): Identity => ({
  kind: "run",
  claims: { agentId, sessionKey, runId: "run-1", depth: 2, sandboxed: true, exp: 2_000_000_000 },
});

const resolve = (identity: Identity, named: { sessionKey?: string; agentId?: string } = {}) =>
  resolveRequester(identity, named, config, indexShards(env));

describe("operator token", () => {
  it("must name the requester session", async () => {
    const result = await resolve(operator);
    expect(result).toMatchObject({ ok: false, code: "bad_request" });
    expect(result.ok ? "" : result.message).toMatch(/^sessionKey required/);
  });

  it("acts as a full key it names", async () => {
    expect(await resolve(operator, { sessionKey: "agent:research:discord:group:dev" })).toEqual({
      ok: true,
      requester: {
        agentId: "research",
        sessionKey: "agent:research:discord:group:dev",
        depth: 0,
        sandboxed: false,
        isSubagent: false,
      },
    });
  });

  it("needs agentId for a legacy key", async () => {
    const result = await resolve(operator, { sessionKey: "discord:group:dev" });
    expect(result).toMatchObject({ ok: false, code: "bad_request" });
    expect(result.ok ? "" : result.message).toContain("agentId");
    expect(await resolve(operator, { sessionKey: "discord:group:dev", agentId: "Research" })).toMatchObject({
      ok: true,
      requester: { agentId: "research", sessionKey: "agent:research:discord:group:dev" },
    });
  });

  it("rejects an agentId that contradicts a full key", async () => {
    const result = await resolve(operator, { sessionKey: "agent:main:cron:x", agentId: "research" });
    expect(result).toMatchObject({ ok: false, code: "bad_request" });
    expect(result.ok ? "" : result.message).toMatch(/^agentId: /);
    expect(await resolve(operator, { sessionKey: "agent:main:cron:x", agentId: "MAIN" })).toMatchObject({
      ok: true,
      requester: { sessionKey: "agent:main:cron:x" },
    });
  });

  it("rejects a malformed agentId", async () => {
    expect(await resolve(operator, { sessionKey: "main", agentId: "Not An Id" })).toMatchObject({
      ok: false,
      code: "bad_request",
      message: "agentId: invalid agent id",
    });
  });

  it("may not act as an unconfigured agent", async () => {
    const result = await resolve(operator, { sessionKey: "agent:ghost:main" });
    expect(result).toMatchObject({ ok: false, code: "forbidden" });
    expect(result.ok ? "" : result.message).toContain('"ghost"');
  });

  it("takes the sandbox flag from the agent's config", async () => {
    expect(await resolve(operator, { sessionKey: "agent:ops:main" })).toMatchObject({
      ok: true,
      requester: { agentId: "ops", sandboxed: true },
    });
  });

  it("reads a sub-agent's depth from the index, 1 when unknown", async () => {
    expect(
      await resolve(operator, { sessionKey: "agent:main:subagent:9a4c4f6e-0000-4000-8000-00000000beef" }),
    ).toMatchObject({ ok: true, requester: { depth: 1, isSubagent: true } });
  });
});

describe("agent token", () => {
  it("acts as the agent's main session by default", async () => {
    expect(await resolve(mainAgent)).toMatchObject({
      ok: true,
      requester: { agentId: "main", sessionKey: "agent:main:main" },
    });
  });

  it("may name another session of its own agent, legacy or full", async () => {
    expect(await resolve(mainAgent, { sessionKey: "discord:group:dev" })).toMatchObject({
      ok: true,
      requester: { sessionKey: "agent:main:discord:group:dev" },
    });
    expect(await resolve(mainAgent, { sessionKey: "agent:main:cron:daily" })).toMatchObject({
      ok: true,
      requester: { sessionKey: "agent:main:cron:daily" },
    });
  });

  it("may not act as another agent's session, and says why", async () => {
    const result = await resolve(mainAgent, { sessionKey: "agent:research:main" });
    expect(result).toMatchObject({ ok: false, code: "forbidden" });
    expect(result.ok ? "" : result.message).toContain('"main"');
  });
});

describe("run token", () => {
  const own = "agent:main:subagent:9a4c4f6e-0000-4000-8000-00000000cafe";

  it("acts as its own session with the claims' depth and sandbox flag", async () => {
    expect(await resolve(runIdentity(own))).toEqual({
      ok: true,
      requester: {
        agentId: "main",
        sessionKey: own,
        depth: 2,
        sandboxed: true,
        isSubagent: true,
        runId: "run-1",
      },
    });
  });

  it("may name its own session, by key or as current", async () => {
    expect(await resolve(runIdentity(own), { sessionKey: own })).toMatchObject({ ok: true });
    expect(await resolve(runIdentity(own), { sessionKey: "current" })).toMatchObject({
      ok: true,
      requester: { sessionKey: own },
    });
  });

  it("may not name another session, even of its own agent", async () => {
    for (const sessionKey of ["agent:main:main", "main", "agent:research:main"]) {
      const result = await resolve(runIdentity(own), { sessionKey });
      expect(result).toMatchObject({ ok: false, code: "forbidden" });
    }
  });

  it("is refused once its agent is no longer configured", async () => {
    expect(await resolve(runIdentity("agent:ghost:main", "ghost"))).toMatchObject({
      ok: false,
      code: "forbidden",
    });
  });
});
