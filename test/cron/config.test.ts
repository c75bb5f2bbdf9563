import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/config/parse";

const job = (extra: Record<string, unknown> = {}) => ({
  jobId: "daily",
  agentId: "main",
  schedule: { kind: "cron", expr: "0 9 * * *", tz: "Europe/Berlin" },
  payload: { kind: "agentTurn", message: "summarize" },
  ...extra,
});

describe("cron in the configuration (SPEC §22)", () => {
  it("defaults: no jobs, run sessions kept 24 h; a retention is a duration", () => {
    const plain = validateConfig({}, "test");
    expect(plain.ok && plain.config.cron).toEqual({ jobs: [], sessionRetention: 86_400_000 });
    const custom = validateConfig({ cron: { sessionRetention: "30m", jobs: [job()] } }, "test");
    expect(custom.ok && custom.config.cron.sessionRetention).toBe(1_800_000);
    expect(custom.ok && custom.config.cron.jobs[0]?.jobId).toBe("daily");
  });

  it("a job of an unknown agent, a duplicate id, a bad expression: the file is invalid, naming the path", () => {
    expect(validateConfig({ cron: { jobs: [job({ agentId: "nobody" })] } }, "test")).toEqual({
      ok: false,
      error: 'test invalid: cron.jobs[0].agentId: unknown agent "nobody"',
    });
    expect(validateConfig({ cron: { jobs: [job(), job()] } }, "test")).toEqual({
      ok: false,
      error: 'test invalid: cron.jobs[1].jobId: duplicate job id "daily"',
    });
    const bad = validateConfig(
      { cron: { jobs: [job({ schedule: { kind: "cron", expr: "0 25 * * *" } })] } },
      "test",
    );
    expect(bad.ok ? "" : bad.error).toMatch(/^test invalid: cron\.jobs\[0\]\.schedule\.expr: /);
    expect(validateConfig({ cron: { sessionRetention: "a day" } }, "test")).toMatchObject({ ok: false });
  });
});
