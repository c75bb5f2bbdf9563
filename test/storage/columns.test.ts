import { describe, expect, it } from "vitest";
import { camelCase, fromColumns, snakeCase } from "../../src/storage/columns";

describe("columns", () => {
  it("maps snake_case columns to camelCase fields and back", () => {
    expect(camelCase("session_key")).toBe("sessionKey");
    expect(camelCase("last_run_id")).toBe("lastRunId");
    expect(snakeCase("sessionKey")).toBe("session_key");
    expect(snakeCase("lastRunId")).toBe("last_run_id");
    for (const field of ["spawnDepth", "estimatedCostUsd", "key"])
      expect(camelCase(snakeCase(field))).toBe(field);
  });

  it("reads a row with SQL NULL as an absent field", () => {
    expect(fromColumns({ session_key: "agent:main:main", label: null, spawn_depth: 0 })).toEqual({
      sessionKey: "agent:main:main",
      spawnDepth: 0,
    });
  });
});
