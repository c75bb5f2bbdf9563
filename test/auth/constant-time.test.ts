import { describe, expect, it } from "vitest";
import { secretMatches, secretsEqual } from "../../src/auth/constant-time";

describe("secretsEqual", () => {
  it("is true only for identical strings", async () => {
    expect(await secretsEqual("test-admin-token", "test-admin-token")).toBe(true);
    expect(await secretsEqual("test-admin-token", "test-admin-tokeN")).toBe(false);
    expect(await secretsEqual("test-admin-token", "test-admin-toke")).toBe(false);
    expect(await secretsEqual("test-admin-token", "test-admin-token ")).toBe(false);
    expect(await secretsEqual("", "test-admin-token")).toBe(false);
  });

  it("compares inputs of different lengths without throwing", async () => {
    expect(await secretsEqual("a", "a".repeat(10_000))).toBe(false);
    expect(await secretsEqual("", "")).toBe(true);
  });

  it("compares unicode by its bytes", async () => {
    expect(await secretsEqual("päss", "päss")).toBe(true);
    expect(await secretsEqual("päss", "pass")).toBe(false);
  });
});

describe("secretMatches", () => {
  it("compares the given secret with each expected one, every one of them", async () => {
    expect(await secretMatches("tok-b", ["tok-a", "tok-b", "tok-c", "tok-b"])).toEqual([
      false,
      true,
      false,
      true,
    ]);
    expect(await secretMatches("", ["", "x"])).toEqual([true, false]);
    expect(await secretMatches("tok", [])).toEqual([]);
  });
});
