import { describe, expect, it } from "vitest";
import { canonicalizeKeyInput, mainSessionKey } from "../../src/keys";
import { customMain, defaults, globalScope, SAMPLE_UUID } from "./options";

const keyOf = (input: string, options = defaults, requester = "main") => {
  const result = canonicalizeKeyInput(input, requester, options);
  return result.ok ? result.key : `error: ${result.error}`;
};

const errorOf = (input: string, options = defaults, requester = "main") => {
  const result = canonicalizeKeyInput(input, requester, options);
  return result.ok ? undefined : result.error;
};

describe("the literal main", () => {
  it("is the requester's main session", () => {
    expect(keyOf("main", defaults, "research")).toBe("agent:research:main");
  });

  it("uses the configured mainKey", () => {
    expect(keyOf("main", customMain, "research")).toBe("agent:research:home");
  });

  it("is what mainSessionKey names, in every key option", () => {
    expect(mainSessionKey("research", defaults)).toBe("agent:research:main");
    expect(mainSessionKey("research", customMain)).toBe("agent:research:home");
    expect(mainSessionKey("research", globalScope)).toBe("agent:research:global");
    for (const options of [defaults, customMain, globalScope])
      expect(mainSessionKey("research", options)).toBe(keyOf("main", options, "research"));
  });

  it("accepts the configured mainKey itself", () => {
    expect(keyOf("home", customMain, "research")).toBe("agent:research:home");
  });

  it("maps a prefixed literal main to the configured mainKey", () => {
    expect(keyOf("agent:ops:main", customMain, "research")).toBe("agent:ops:home");
  });

  it("keeps a prefixed mainKey", () => {
    expect(keyOf("agent:ops:home", customMain, "research")).toBe("agent:ops:home");
  });
});

describe("legacy unprefixed shapes belong to the requester", () => {
  it.each([
    ["discord:group:dev", "agent:ops:discord:group:dev"],
    ["discord:channel:general", "agent:ops:discord:channel:general"],
    ["telegram:direct:42", "agent:ops:telegram:direct:42"],
    ["telegram:dm:42", "agent:ops:telegram:dm:42"],
    ["cron:job-1", "agent:ops:cron:job-1"],
    [`hook:${SAMPLE_UUID}`, `agent:ops:hook:${SAMPLE_UUID}`],
    ["node-mac", "agent:ops:node-mac"],
    ["node:mac", "agent:ops:node:mac"],
    [`subagent:${SAMPLE_UUID}`, `agent:ops:subagent:${SAMPLE_UUID}`],
    ["random-slug", "agent:ops:random-slug"],
  ])("%s", (input, expected) => {
    expect(keyOf(input, defaults, "ops")).toBe(expected);
  });

  it("normalizes the requester's agent id", () => {
    expect(keyOf("cron:job-1", defaults, " OPS ")).toBe("agent:ops:cron:job-1");
  });

  it("rejects an invalid requester agent id", () => {
    expect(errorOf("cron:job-1", defaults, "bad id")).toContain("bad id");
  });
});

describe("canonical input", () => {
  it("keeps its own agent", () => {
    expect(keyOf("agent:research:discord:group:dev", defaults, "ops")).toBe(
      "agent:research:discord:group:dev",
    );
  });

  it("keeps a cross-agent sub-agent key", () => {
    expect(keyOf(`agent:ops:subagent:${SAMPLE_UUID}:subagent:${SAMPLE_UUID}`)).toBe(
      `agent:ops:subagent:${SAMPLE_UUID}:subagent:${SAMPLE_UUID}`,
    );
  });

  it("is case-folded and trimmed", () => {
    expect(keyOf("  Agent:Research:Discord:Group:DEV  ")).toBe("agent:research:discord:group:dev");
  });

  it("case-folds legacy input", () => {
    expect(keyOf("Discord:Group:Dev", defaults, "ops")).toBe("agent:ops:discord:group:dev");
  });

  it("rejects a bad agent id and names it", () => {
    expect(errorOf("agent:Bad!:main")).toContain('"Bad!"');
  });

  it("rejects an empty agent id", () => {
    expect(errorOf("agent::main")).toMatch(/invalid agent id/);
  });

  it("rejects an agent id longer than 64 characters", () => {
    expect(errorOf(`agent:${"a".repeat(65)}:main`)).toMatch(/invalid agent id/);
  });

  it("rejects agent:<id> without a rest", () => {
    expect(errorOf("agent:main")).toMatch(/names no session/);
    expect(errorOf("agent:main:")).toMatch(/names no session/);
  });
});

describe("reserved and empty input", () => {
  it.each(["global", "unknown", "GLOBAL", "agent:main:global", "agent:ops:unknown", "Agent:Main:Unknown"])(
    "rejects %s as reserved",
    (input) => {
      expect(errorOf(input)).toContain("reserved");
    },
  );

  it("rejects global as reserved in global scope too", () => {
    expect(errorOf("global", globalScope)).toContain("reserved");
    expect(errorOf("agent:main:global", globalScope)).toContain("reserved");
  });

  it("rejects empty and blank input", () => {
    expect(errorOf("")).toMatch(/empty/);
    expect(errorOf("   ")).toMatch(/empty/);
  });

  it("does not special-case current", () => {
    expect(keyOf("current", defaults, "ops")).toBe("agent:ops:current");
  });
});

describe("global scope", () => {
  it("maps main to the internal global key", () => {
    expect(keyOf("main", globalScope, "ops")).toBe("agent:ops:global");
  });

  it("maps a prefixed main key to global", () => {
    expect(keyOf("agent:research:main", globalScope, "ops")).toBe("agent:research:global");
  });

  it("maps a custom mainKey to global", () => {
    const options = { mainKey: "home", scope: "global" } as const;
    expect(keyOf("home", options, "ops")).toBe("agent:ops:global");
    expect(keyOf("main", options, "ops")).toBe("agent:ops:global");
  });

  it("maps direct chats to global", () => {
    expect(keyOf("telegram:direct:42", globalScope, "ops")).toBe("agent:ops:global");
    expect(keyOf("agent:research:discord:dm:7", globalScope, "ops")).toBe("agent:research:global");
  });

  it("maps a threaded direct chat to global", () => {
    expect(keyOf("telegram:direct:42:thread:7", globalScope, "ops")).toBe("agent:ops:global");
  });

  it("leaves group, cron and sub-agent keys alone", () => {
    expect(keyOf("discord:group:dev", globalScope, "ops")).toBe("agent:ops:discord:group:dev");
    expect(keyOf("cron:daily", globalScope, "ops")).toBe("agent:ops:cron:daily");
    expect(keyOf(`subagent:${SAMPLE_UUID}`, globalScope, "ops")).toBe(`agent:ops:subagent:${SAMPLE_UUID}`);
  });

  it("keeps direct chats separate in per-sender scope", () => {
    expect(keyOf("telegram:direct:42", defaults, "ops")).toBe("agent:ops:telegram:direct:42");
  });
});
