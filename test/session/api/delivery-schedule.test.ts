import { describe, expect, it } from "vitest";
import { ledgerError } from "../../../src/session/api/api-deliveries";
import {
  DELIVERY_DEADLINE_MS,
  DELIVERY_KEEP_MS,
  nextAttemptAt,
  retryDelayMs,
} from "../../../src/session/api/delivery-schedule";
import { migrationsFrom0012 } from "../../../src/session/schema/migrations-0012";

describe("the retry schedule (SPEC §16)", () => {
  it("waits min(300 s, 15 s · 2^(n−1)) plus 0–20% jitter after the n-th failure", () => {
    const bases = [15, 30, 60, 120, 240, 300, 300].map((seconds) => seconds * 1000);
    bases.forEach((base, index) => {
      expect(retryDelayMs(index + 1, () => 0)).toBe(base);
      expect(retryDelayMs(index + 1, () => 0.999_999)).toBe(Math.round(base * 1.199_999_8));
    });
  });

  it("never schedules past the deadline, and stops once it has passed", () => {
    const first = 1_000_000;
    const deadline = first + DELIVERY_DEADLINE_MS;
    expect(nextAttemptAt(1, first, first)).toBeGreaterThanOrEqual(first + 15_000);
    // Near the end, the last attempt is at the deadline itself.
    expect(nextAttemptAt(9, first, deadline - 1000)).toBe(deadline);
    expect(nextAttemptAt(10, first, deadline)).toBeUndefined();
  });

  it("keeps settled records 7 days: the alarm's due_work view says the same number", () => {
    expect(DELIVERY_KEEP_MS).toBe(7 * 24 * 60 * 60 * 1000);
    // The view as the latest migration that rebuilds it leaves it.
    const view = migrationsFrom0012.findLast((migration) => migration.sql.includes("CREATE VIEW due_work"));
    expect(view?.sql).toContain(`updated_at + ${DELIVERY_KEEP_MS} FROM delivery`);
  });

  it("keeps no URL in an error (a webhook URL may carry its secret)", () => {
    expect(ledgerError("fetch https://hooks.example/T0/B0/s3cret failed")).toBe("fetch <url> failed");
    expect(ledgerError("x".repeat(900))).toHaveLength(500);
  });
});
