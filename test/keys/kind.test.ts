import { describe, expect, it } from "vitest";
import { classifyKind, parseSessionKey } from "../../src/keys";
import { customMain, defaults, globalScope, SAMPLE_UUID } from "./options";

// One test per row of the SPEC §1 table, through the full key.
describe("SPEC §1 kinds table", () => {
  const kindOf = (key: string) => parseSessionKey(key, defaults)?.kind;

  it("agent:main:main is main", () => {
    expect(kindOf("agent:main:main")).toBe("main");
  });

  it("agent:main:discord:group:dev is group", () => {
    expect(kindOf("agent:main:discord:group:dev")).toBe("group");
  });

  it("agent:main:discord:channel:general is group", () => {
    expect(kindOf("agent:main:discord:channel:general")).toBe("group");
  });

  it("agent:main:telegram:direct:42 is other (direct chat)", () => {
    expect(kindOf("agent:main:telegram:direct:42")).toBe("other");
  });

  it("agent:main:telegram:dm:42 is other (direct chat)", () => {
    expect(kindOf("agent:main:telegram:dm:42")).toBe("other");
  });

  it("agent:main:cron:daily is cron", () => {
    expect(kindOf("agent:main:cron:daily")).toBe("cron");
  });

  it("a cron run key is cron", () => {
    expect(kindOf("agent:main:cron:daily:run:r1")).toBe("cron");
  });

  it("agent:main:hook:<uuid> is hook", () => {
    expect(kindOf(`agent:main:hook:${SAMPLE_UUID}`)).toBe("hook");
  });

  it("agent:main:node-mac is node", () => {
    expect(kindOf("agent:main:node-mac")).toBe("node");
  });

  it("agent:main:node:mac is node", () => {
    expect(kindOf("agent:main:node:mac")).toBe("node");
  });

  it("agent:ops:subagent:<uuid> is other", () => {
    expect(kindOf(`agent:ops:subagent:${SAMPLE_UUID}`)).toBe("other");
  });

  it("a nested sub-agent key is other", () => {
    expect(kindOf(`agent:ops:subagent:${SAMPLE_UUID}:subagent:${SAMPLE_UUID}`)).toBe("other");
  });

  it("anything else is other", () => {
    expect(kindOf("agent:main:random-slug")).toBe("other");
  });
});

describe("classifyKind", () => {
  it("treats the configured mainKey as main", () => {
    expect(classifyKind("home", customMain)).toBe("main");
  });

  it("still treats the literal main as main under a custom mainKey", () => {
    expect(classifyKind("main", customMain)).toBe("main");
  });

  it("classifies the internal global rest as main", () => {
    expect(classifyKind("global", globalScope)).toBe("main");
    expect(classifyKind("global", defaults)).toBe("main");
  });

  it("keeps group kind with a thread or topic suffix", () => {
    expect(classifyKind("slack:channel:c1:thread:171.5", defaults)).toBe("group");
    expect(classifyKind("telegram:group:-100123:topic:99", defaults)).toBe("group");
  });

  it("is case-insensitive", () => {
    expect(classifyKind("CRON:Daily", defaults)).toBe("cron");
    expect(classifyKind("Discord:GROUP:Dev", defaults)).toBe("group");
  });

  it("reads internal prefixes before chat shapes", () => {
    expect(classifyKind("cron:group:x", defaults)).toBe("cron");
    expect(classifyKind("node:group:x", defaults)).toBe("node");
    expect(classifyKind("subagent:group:x", defaults)).toBe("other");
  });

  it("needs an id after the internal prefixes", () => {
    expect(classifyKind("cron:", defaults)).toBe("other");
    expect(classifyKind("hook:", defaults)).toBe("other");
    expect(classifyKind("node-", defaults)).toBe("other");
  });

  it("does not treat a node-like word as a node key", () => {
    expect(classifyKind("nodes", defaults)).toBe("other");
  });

  it("needs a chat id for a group key", () => {
    expect(classifyKind("discord:group:", defaults)).toBe("other");
  });
});
