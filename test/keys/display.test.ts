import { describe, expect, it } from "vitest";
import { canonicalizeKeyInput, displayKey } from "../../src/keys";
import { customMain, defaults, globalScope } from "./options";

describe("displayKey", () => {
  it("shows the internal global key as the main key", () => {
    expect(displayKey("agent:ops:global", globalScope)).toBe("agent:ops:main");
  });

  it("uses a custom mainKey", () => {
    expect(displayKey("agent:ops:global", { mainKey: "home", scope: "global" })).toBe("agent:ops:home");
  });

  it("recognizes a global key in any case", () => {
    expect(displayKey("Agent:Ops:GLOBAL", globalScope)).toBe("agent:ops:main");
  });

  it.each([
    "agent:ops:main",
    "agent:ops:discord:group:dev",
    "agent:ops:global:x",
    "agent:ops:unknown",
    "global",
    "Odd Input",
  ])("leaves %s unchanged", (key) => {
    expect(displayKey(key, defaults)).toBe(key);
  });

  it("round-trips main through global scope", () => {
    const stored = canonicalizeKeyInput("main", "ops", globalScope);
    expect(stored).toEqual({ ok: true, key: "agent:ops:global" });
    if (stored.ok) expect(displayKey(stored.key, globalScope)).toBe("agent:ops:main");
  });

  it("round-trips a custom main key in per-sender scope without change", () => {
    expect(displayKey("agent:ops:home", customMain)).toBe("agent:ops:home");
  });
});
