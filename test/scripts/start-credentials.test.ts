import { describe, expect, it } from "vitest";
import {
  configurationLines,
  credentialLines,
  LOCAL_CREDENTIALS,
  startVars,
} from "../../scripts/start-credentials.mjs";

const ownConfig = JSON.stringify({ agents: { list: [{ id: "mine" }] } });

describe("npm start's credentials (scripts/start-credentials.mjs)", () => {
  it("keeps every local credential when .dev.vars sets only a model key and a configuration", () => {
    const start = startVars({ OPENAI_API_KEY: "sk-test", SWITCHBOARD_CONFIG: ownConfig });
    expect(start.vars).toEqual({
      ...LOCAL_CREDENTIALS,
      OPENAI_API_KEY: "sk-test",
      SWITCHBOARD_CONFIG: ownConfig,
    });
    expect(start.configFromDevVars).toBe(true);
    expect(start.defaulted).toEqual(Object.keys(LOCAL_CREDENTIALS));
    const lines = credentialLines(start, true);
    expect(lines[0]).toBe("Local credentials (for this machine only; your .dev.vars sets none):");
    expect(lines.join("\n")).toContain("operator token   local-admin-token");
    expect(lines.join("\n")).toContain("main=local-main-token");
  });

  it("uses what .dev.vars sets and the local default of the rest, and says which is which", () => {
    const start = startVars({ SWITCHBOARD_ADMIN_TOKEN: "my-admin", SWITCHBOARD_SIGNING_KEY: "" });
    expect(start.vars.SWITCHBOARD_ADMIN_TOKEN).toBe("my-admin");
    // An empty value sets nothing.
    expect(start.vars.SWITCHBOARD_SIGNING_KEY).toBe(LOCAL_CREDENTIALS.SWITCHBOARD_SIGNING_KEY);
    expect(start.vars.SWITCHBOARD_AGENT_TOKENS).toBe(LOCAL_CREDENTIALS.SWITCHBOARD_AGENT_TOKENS);
    // No configuration var: the Worker runs its bundled config/local.json.
    expect(start.vars).not.toHaveProperty("SWITCHBOARD_CONFIG");
    expect(start.configFromDevVars).toBe(false);
    const lines = credentialLines(start, true);
    expect(lines[0]).toBe(
      "Credentials: SWITCHBOARD_ADMIN_TOKEN from your .dev.vars; local defaults (for this machine only) for the rest:",
    );
    expect(lines.join("\n")).not.toContain("local-admin-token");
    expect(lines.join("\n")).toContain("agent tokens     main=local-main-token");
  });

  it("says the credentials are the file's when it sets all of them, and prints none of them", () => {
    const all = {
      SWITCHBOARD_ADMIN_TOKEN: "a",
      SWITCHBOARD_AGENT_TOKENS: '{"main":"m"}',
      SWITCHBOARD_SIGNING_KEY: "k",
    };
    const start = startVars(all);
    expect(start.defaulted).toEqual([]);
    expect(start.vars).toMatchObject(all);
    expect(credentialLines(start, true)).toEqual(["Credentials: from your .dev.vars"]);
  });

  it("without a .dev.vars serves the bundled configuration with the local credentials", () => {
    const start = startVars(undefined);
    expect(start.vars).toEqual(LOCAL_CREDENTIALS);
    expect(credentialLines(start, false)[0]).toBe("Local credentials (for this machine only):");
  });

  it("says where the configuration comes from and which secrets it lacks, by name", () => {
    expect(configurationLines({ ok: true, config: "config/local.json", missingSecrets: [] })).toEqual([
      "Configuration: config/local.json (bundled; edit it and restart, check it with npm run config:check)",
    ]);
    expect(
      configurationLines({
        ok: true,
        config: "SWITCHBOARD_CONFIG",
        missingSecrets: ["OPENAI_API_KEY", "GW"],
      }),
    ).toEqual([
      "Configuration: SWITCHBOARD_CONFIG from your .dev.vars (over config/local.json)",
      "  missing secrets (add them to .dev.vars): OPENAI_API_KEY, GW",
    ]);
    const invalid = configurationLines({
      ok: false,
      config: "config/local.json",
      error: { message: "config/local.json invalid: agents.list[0].id: …" },
    });
    expect(invalid[1]).toBe("  INVALID: config/local.json invalid: agents.list[0].id: …");
  });
});
