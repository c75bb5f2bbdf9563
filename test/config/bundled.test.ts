import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/app";
import { bundledConfig } from "../../src/config/bundled";
import { readConfig, validateConfig } from "../../src/config/load";
import { AGENT_TOKENS } from "../support";

/** The Worker answering with `vars` over the test bindings (SWITCHBOARD_CONFIG left out when undefined). */
async function fetchWith(vars: Partial<Env>, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`http://switchboard.test${path}`, init),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

describe("the configuration file bundled into the Worker (SPEC §20)", () => {
  it("is config/local.json at the top level, and is what runs without SWITCHBOARD_CONFIG", async () => {
    expect(bundledConfig.file).toBe("config/local.json");
    const loaded = readConfig({ ...env, SWITCHBOARD_CONFIG: undefined });
    expect(loaded.source).toBe("config/local.json");
    expect(loaded.result).toEqual(validateConfig(JSON.parse(env.LOCAL_DEFAULT_CONFIG ?? ""), "file"));

    const health = await fetchWith({ SWITCHBOARD_CONFIG: undefined }, "/healthz");
    expect(await health.json()).toEqual({
      ok: true,
      version: expect.any(String),
      config: "config/local.json",
      missingSecrets: [],
    });
    // main's sub-agent targets are the file's (research, ops), not the test configuration's.
    const listed = await fetchWith({ SWITCHBOARD_CONFIG: "" }, "/v1/tools/agents_list", {
      method: "POST",
      headers: { Authorization: `Bearer ${AGENT_TOKENS.main}`, "Content-Type": "application/json" },
      body: "{}",
    });
    const body = await listed.json<{ agents: { id: string }[] }>();
    expect(body.agents.map((agent) => agent.id).sort()).toEqual(["main", "ops", "research"]);
  });

  it("is overridden by SWITCHBOARD_CONFIG", async () => {
    const health = await fetchWith({}, "/healthz");
    expect(await health.json()).toMatchObject({ ok: true, config: "SWITCHBOARD_CONFIG" });
  });
});

describe("secrets the document names but the Worker lacks", () => {
  afterEach(() => vi.restoreAllMocks());

  const document = {
    agents: {
      list: [
        { id: "main", runtime: { type: "openai", model: "m", apiKeyEnv: "FAKE_MODEL_KEY" } },
        {
          id: "gw",
          runtime: {
            type: "openai",
            model: "m",
            apiKeyEnv: "MISSING_PROVIDER_KEY",
            headers: { "cf-aig-authorization": { env: "MISSING_GATEWAY_TOKEN" } },
          },
          fallbacks: [{ type: "anthropic", model: "c", apiKeyEnv: "MISSING_ANTHROPIC_KEY" }],
        },
        {
          id: "hook",
          runtime: { type: "webhook", url: "https://agent.test/run", secretEnv: "MISSING_HOOK" },
        },
        {
          id: "scripted",
          // A scripted rule's arguments are data, never a secret's name.
          runtime: {
            type: "scripted",
            rules: [{ match: "*", toolCall: { name: "x", args: { apiKeyEnv: "NO" } } }],
          },
        },
      ],
    },
    channels: { webchat: { secretEnv: "MISSING_CHANNEL_SECRET" } },
  };

  it("are listed by /healthz by name, and logged once per isolate", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const vars = { SWITCHBOARD_CONFIG: JSON.stringify(document) };
    const first = await fetchWith(vars, "/healthz");
    const text = await first.text();
    expect(first.status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      ok: true,
      missingSecrets: [
        "MISSING_ANTHROPIC_KEY",
        "MISSING_CHANNEL_SECRET",
        "MISSING_GATEWAY_TOKEN",
        "MISSING_HOOK",
        "MISSING_PROVIDER_KEY",
      ],
    });
    // The secret that is there is neither listed nor shown.
    expect(text).not.toContain("FAKE_MODEL_KEY");
    expect(text).not.toContain(env.FAKE_MODEL_KEY);
    await fetchWith(vars, "/healthz");
    const logged = warn.mock.calls.map((call) => String(call[0]));
    expect(logged.filter((line) => line.includes("MISSING_PROVIDER_KEY"))).toHaveLength(1);
    expect(logged.join("\n")).toContain(
      "configuration (SWITCHBOARD_CONFIG) names secrets this Worker does not have: MISSING_ANTHROPIC_KEY,",
    );
  });
});
