import { describe, expect, it } from "vitest";
import { z } from "zod";
import { flooredNumber, normalizeArgs } from "../../src/tools/args";

const schema = z.object({
  sessionKey: z.string().optional(),
  includeTools: z.boolean().optional(),
  activeMinutes: flooredNumber().optional(),
  kinds: z.array(z.string()).optional(),
});

describe("normalizeArgs", () => {
  it("accepts the snake_case spelling of each camelCase param", () => {
    expect(
      normalizeArgs(schema, { session_key: "agent:main:main", include_tools: true, active_minutes: 5 }),
    ).toEqual({
      sessionKey: "agent:main:main",
      includeTools: true,
      activeMinutes: 5,
    });
  });

  it("prefers the camelCase spelling when both are given", () => {
    expect(normalizeArgs(schema, { sessionKey: "camel", session_key: "snake" })).toEqual({
      sessionKey: "camel",
    });
    expect(normalizeArgs(schema, { session_key: "snake", sessionKey: "camel" })).toEqual({
      sessionKey: "camel",
    });
  });

  it("falls back to the other spelling when one is empty", () => {
    expect(normalizeArgs(schema, { sessionKey: "  ", session_key: "snake" })).toEqual({
      sessionKey: "snake",
    });
  });

  it("trims strings", () => {
    expect(normalizeArgs(schema, { sessionKey: "  agent:main:main\n" })).toEqual({
      sessionKey: "agent:main:main",
    });
  });

  it("drops empty and blank strings as absent", () => {
    expect(normalizeArgs(schema, { sessionKey: "", session_key: "   " })).toEqual({});
  });

  it("leaves non-strings, nested values and unknown keys for the schema", () => {
    expect(normalizeArgs(schema, { kinds: [" main "], includeTools: false, extra: " x " })).toEqual({
      kinds: [" main "],
      includeTools: false,
      extra: "x",
    });
  });

  it("passes non-objects through", () => {
    expect(normalizeArgs(schema, "text")).toBe("text");
    expect(normalizeArgs(schema, null)).toBe(null);
    const list = [1];
    expect(normalizeArgs(schema, list)).toBe(list);
  });
});

describe("flooredNumber", () => {
  it("floors floats, including negative ones", () => {
    expect(flooredNumber().parse(2.9)).toBe(2);
    expect(flooredNumber().parse(5)).toBe(5);
    expect(flooredNumber().parse(-0.5)).toBe(-1);
  });

  it("takes JSON numbers only", () => {
    expect(flooredNumber().safeParse("5").success).toBe(false);
    expect(flooredNumber().safeParse(Number.NaN).success).toBe(false);
  });
});

describe("hostile keys", () => {
  it("does not let __proto__ supply params", () => {
    const args = normalizeArgs(schema, JSON.parse('{"__proto__": {"sessionKey": "  injected  "}}'));
    expect(schema.parse(args)).toEqual({});
  });

  it("does not read inherited names as params", () => {
    const args = normalizeArgs(schema, JSON.parse('{"toString": " x ", "session_key": "k"}'));
    expect(schema.parse(args)).toEqual({ sessionKey: "k" });
  });
});
