import { describe, expect, it } from "vitest";
import { maintenancePolicy } from "../../src/config/agents";
import { parseConfig } from "../../src/config/load";
import { parseDuration } from "../../src/config/maintenance";
import type { SwitchboardConfig } from "../../src/config/schema";

function configOf(document: unknown): SwitchboardConfig {
  const result = parseConfig(JSON.stringify(document));
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error}`);
  return result.config;
}

function errorOf(document: unknown): string {
  const result = parseConfig(JSON.stringify(document));
  if (result.ok) throw new Error("expected an invalid config");
  return result.error;
}

const DAY = 86_400_000;

describe("durations (SPEC §23)", () => {
  it("reads seconds, minutes, hours and days", () => {
    expect(parseDuration("45s")).toBe(45_000);
    expect(parseDuration("90m")).toBe(90 * 60_000);
    expect(parseDuration("12h")).toBe(12 * 3_600_000);
    expect(parseDuration("30d")).toBe(30 * DAY);
  });

  it("refuses anything else", () => {
    for (const text of ["", "30", "0d", "1.5h", "30 d", "30D", "1w", "-1d", "d"])
      expect(parseDuration(text), text).toBeUndefined();
  });

  it("names the path of an invalid duration", () => {
    expect(errorOf({ session: { maintenance: { pruneAfter: "30 days" } } })).toMatch(
      /^SWITCHBOARD_CONFIG invalid: session\.maintenance\.pruneAfter: a duration is/,
    );
    expect(
      errorOf({
        agents: { list: [{ id: "main", maintenance: { byKind: { group: { searchRetention: "1w" } } } }] },
      }),
    ).toMatch(/agents\.list\[0\]\.maintenance\.byKind\.group\.searchRetention: a duration/);
    expect(errorOf({ session: { maintenance: { maxMessages: 0 } } })).toMatch(
      /session\.maintenance\.maxMessages/,
    );
    expect(errorOf({ session: { maintenance: { byKind: { weekly: {} } } } })).toMatch(
      /session\.maintenance\.byKind/,
    );
    expect(errorOf({ session: { maintenance: { mode: "dry-run" } } })).toMatch(/session\.maintenance\.mode/);
  });
});

describe("policy layers", () => {
  it("defaults to OpenClaw's: idle sessions pruned after 30 days, runs kept 30 days, enforced", () => {
    expect(maintenancePolicy(configOf({}), "main", "main")).toEqual({
      pruneAfterMs: 30 * DAY,
      archiveAfterMs: undefined,
      maxMessages: undefined,
      searchRetentionMs: undefined,
      runRetentionMs: 30 * DAY,
      mode: "enforce",
    });
  });

  it("applies session defaults, then their kind, then the agent, then the agent's kind", () => {
    const config = configOf({
      session: {
        maintenance: {
          pruneAfter: "10d",
          maxMessages: 500,
          byKind: { group: { pruneAfter: "5d", mode: "warn" } },
        },
      },
      agents: {
        list: [
          { id: "main" },
          { id: "bot", maintenance: { archiveAfter: "12h", byKind: { group: { maxMessages: 50 } } } },
        ],
      },
    });
    expect(maintenancePolicy(config, "main", "main")).toMatchObject({
      pruneAfterMs: 10 * DAY,
      maxMessages: 500,
    });
    expect(maintenancePolicy(config, "main", "group")).toMatchObject({ pruneAfterMs: 5 * DAY, mode: "warn" });
    expect(maintenancePolicy(config, "bot", "group")).toMatchObject({
      pruneAfterMs: 5 * DAY,
      archiveAfterMs: 12 * 3_600_000,
      maxMessages: 50,
      mode: "warn",
    });
    expect(maintenancePolicy(config, "bot", "main")).toMatchObject({ maxMessages: 500, mode: "enforce" });
  });
});
