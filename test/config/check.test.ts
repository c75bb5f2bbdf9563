import { describe, expect, it } from "vitest";
import { checkConfigText } from "../../src/config/check";

// The function `npm run config:check` runs (scripts/config-check.mjs bundles it for Node).
describe("the configuration check (npm run config:check)", () => {
  const none = () => false;

  it("names the bad path of an invalid file, as the Worker would", () => {
    const text = JSON.stringify({
      agents: { list: [{ id: "main" }, { id: "x", runtime: { type: "gpt" } }] },
    });
    const check = checkConfigText(text, "config/production.json", none);
    expect(check.error).toMatch(/^config\/production\.json invalid: agents\.list\[1\]\.runtime\.type: /);
    expect(checkConfigText("{ nope", "config/local.json", none).error).toMatch(
      /^config\/local\.json is not valid JSON/,
    );
    expect(checkConfigText("  ", "config/local.json", none).error).toBe("config/local.json is empty");
  });

  it("reports the named secrets its environment lacks, by name, and only those", () => {
    const text = JSON.stringify({
      agents: {
        list: [
          {
            id: "main",
            runtime: {
              type: "openai",
              model: "gpt",
              apiKeyEnv: "OPENAI_API_KEY",
              headers: { "cf-aig-authorization": { env: "GATEWAY_TOKEN" } },
            },
          },
        ],
      },
    });
    const asked: string[] = [];
    const check = checkConfigText(text, "config/production.json", (name) => {
      asked.push(name);
      return name === "OPENAI_API_KEY";
    });
    expect(check).toEqual({ file: "config/production.json", missingSecrets: ["GATEWAY_TOKEN"] });
    expect(asked.sort()).toEqual(["GATEWAY_TOKEN", "OPENAI_API_KEY"]);
  });
});
