import { describe, expect, it } from "vitest";
import { failureLines, migrationLine } from "../../scripts/start-output.mjs";

// wrangler d1 migrations apply's output, shortened: its table before, then once after each migration.
const table = (marks: string[]) =>
  ["┌──────┬────────┐", ...marks.map((mark, i) => `│ 000${i + 1}.sql │ ${mark} │`), "└──────┴────────┘"].join(
    "\n",
  );
const applying = [
  " ⛅️ wrangler 4.156.2",
  "Migrations to be applied:",
  table(["", ""]),
  "? About to apply 2 migration(s)",
  "🚣 12 commands executed successfully.",
  table(["✅", "🕒️"]),
  "🚣 3 commands executed successfully.",
  table(["✅", "✅"]),
].join("\n");

describe("npm start's output (scripts/start-output.mjs)", () => {
  it("says a database's migrations in one line", () => {
    expect(migrationLine("DB", applying)).toBe("✓ D1 DB: 2 migration(s) applied");
    expect(migrationLine("DB_1", " ⛅️ wrangler 4.156.2\n✅ No migrations to apply!\n")).toBe(
      "✓ D1 DB_1: migrations up to date",
    );
  });

  it("answers a taken port with the one hint npm start takes (PORT=), not Miniflare's --port", () => {
    const taken = Object.assign(
      new Error(
        "Address already in use (127.0.0.1:8787). Please check that you are not already running a server on this address or specify a different port with --port.",
      ),
      { code: "ERR_ADDRESS_IN_USE" },
    );
    const lines = failureLines("starting workerd", taken, { host: "127.0.0.1", port: "8787" });
    expect(lines).toEqual([
      "✗ 127.0.0.1:8787 is in use (an `npm start` already running?): stop it, or serve another port: PORT=8799 npm start",
    ]);
    expect(lines.join("\n")).not.toContain("--port");
  });

  it("says what failed otherwise, and how to repair the install", () => {
    const lines = failureLines("starting workerd", new Error("workerd exited"), {
      host: "127.0.0.1",
      port: "8787",
    });
    expect(lines[0]).toBe("✗ starting workerd failed: workerd exited");
    expect(lines[1]).toContain("npm ci");
  });
});
