import { describe, expect, it } from "vitest";
import { parseSessionKey } from "../../src/keys";
import { defaults, globalScope, SAMPLE_UUID } from "./options";

describe("parseSessionKey", () => {
  it("parses a main key with every flag off", () => {
    expect(parseSessionKey("agent:main:main", defaults)).toEqual({
      key: "agent:main:main",
      agentId: "main",
      rest: "main",
      kind: "main",
      threadScoped: false,
      isCronRun: false,
      isSubagent: false,
      isReserved: false,
    });
  });

  it("parses the parts of a group key", () => {
    expect(parseSessionKey("agent:main:discord:group:dev", defaults)).toMatchObject({
      kind: "group",
      channel: "discord",
      chatType: "group",
      chatId: "dev",
      threadScoped: false,
    });
  });

  it("parses a channel-type key as chatType channel", () => {
    expect(parseSessionKey("agent:main:slack:channel:c0123", defaults)).toMatchObject({
      kind: "group",
      channel: "slack",
      chatType: "channel",
      chatId: "c0123",
    });
  });

  it("parses a direct key", () => {
    expect(parseSessionKey("agent:main:telegram:direct:42", defaults)).toMatchObject({
      kind: "other",
      channel: "telegram",
      chatType: "direct",
      chatId: "42",
    });
  });

  it("reads a dm key as chatType direct", () => {
    expect(parseSessionKey("agent:main:discord:dm:42", defaults)).toMatchObject({
      channel: "discord",
      chatType: "direct",
      chatId: "42",
    });
  });

  it("lower-cases the whole key, agent id and rest", () => {
    const parsed = parseSessionKey("  AGENT:Ops:Discord:Group:DevRoom ", defaults);
    expect(parsed?.key).toBe("agent:ops:discord:group:devroom");
    expect(parsed?.agentId).toBe("ops");
    expect(parsed?.rest).toBe("discord:group:devroom");
    expect(parsed?.chatId).toBe("devroom");
  });

  it("rejects legacy unprefixed keys", () => {
    expect(parseSessionKey("main", defaults)).toBeUndefined();
    expect(parseSessionKey("discord:group:dev", defaults)).toBeUndefined();
  });

  it("rejects a key without a rest", () => {
    expect(parseSessionKey("agent:main", defaults)).toBeUndefined();
    expect(parseSessionKey("agent:main:", defaults)).toBeUndefined();
  });

  it("rejects a bad agent id", () => {
    expect(parseSessionKey("agent:-bad:main", defaults)).toBeUndefined();
    expect(parseSessionKey("agent::main", defaults)).toBeUndefined();
    expect(parseSessionKey("agent:a b:main", defaults)).toBeUndefined();
  });
});

describe("thread and topic suffixes", () => {
  it("detects a :topic: suffix", () => {
    expect(parseSessionKey("agent:main:telegram:group:-100123:topic:99", defaults)).toMatchObject({
      kind: "group",
      chatId: "-100123",
      threadId: "99",
      threadScoped: true,
    });
  });

  it("detects a :thread: suffix", () => {
    expect(parseSessionKey("agent:main:slack:channel:c0123:thread:1712.0042", defaults)).toMatchObject({
      chatId: "c0123",
      threadId: "1712.0042",
      threadScoped: true,
    });
  });

  it("detects a thread suffix on a direct key", () => {
    expect(parseSessionKey("agent:main:telegram:direct:42:thread:7", defaults)).toMatchObject({
      kind: "other",
      chatId: "42",
      threadId: "7",
      threadScoped: true,
    });
  });

  it("keeps colons inside a chat id", () => {
    expect(parseSessionKey("agent:main:matrix:channel:!room:example.org:thread:t1", defaults)).toMatchObject({
      chatId: "!room:example.org",
      threadId: "t1",
    });
    expect(parseSessionKey("agent:main:matrix:channel:!room:example.org", defaults)).toMatchObject({
      chatId: "!room:example.org",
      threadScoped: false,
    });
  });

  it("takes only the last suffix as the thread", () => {
    expect(parseSessionKey("agent:main:discord:group:a:thread:1:thread:2", defaults)).toMatchObject({
      chatId: "a:thread:1",
      threadId: "2",
    });
  });

  it("ignores a suffix without an id", () => {
    const parsed = parseSessionKey("agent:main:discord:group:dev:thread:", defaults);
    expect(parsed?.threadScoped).toBe(false);
    expect(parsed?.chatType).toBeUndefined();
  });

  it("does not call a non-chat key thread-scoped", () => {
    expect(parseSessionKey("agent:main:notes:thread:1", defaults)?.threadScoped).toBe(false);
  });
});

describe("cron runs, sub-agents and reserved keys", () => {
  it("detects a cron run", () => {
    expect(parseSessionKey("agent:main:cron:daily:run:r-1", defaults)).toMatchObject({
      kind: "cron",
      isCronRun: true,
    });
  });

  it("does not call the cron job session a run", () => {
    expect(parseSessionKey("agent:main:cron:daily", defaults)?.isCronRun).toBe(false);
  });

  it("does not call a run key with extra parts a run", () => {
    expect(parseSessionKey("agent:main:cron:daily:run:r-1:extra", defaults)?.isCronRun).toBe(false);
  });

  it("flags a sub-agent key", () => {
    expect(parseSessionKey(`agent:ops:subagent:${SAMPLE_UUID}`, defaults)?.isSubagent).toBe(true);
  });

  it("flags a nested sub-agent key", () => {
    const parsed = parseSessionKey(`agent:ops:subagent:${SAMPLE_UUID}:subagent:${SAMPLE_UUID}`, defaults);
    expect(parsed).toMatchObject({
      isSubagent: true,
      kind: "other",
      rest: `subagent:${SAMPLE_UUID}:subagent:${SAMPLE_UUID}`,
    });
  });

  it("does not flag a key that only contains subagent later", () => {
    expect(parseSessionKey("agent:ops:notes:subagent:x", defaults)?.isSubagent).toBe(false);
  });

  it("flags global as reserved and main-kind", () => {
    expect(parseSessionKey("agent:main:global", globalScope)).toMatchObject({
      isReserved: true,
      kind: "main",
    });
  });

  it("flags unknown as reserved", () => {
    expect(parseSessionKey("agent:main:unknown", defaults)).toMatchObject({
      isReserved: true,
      kind: "other",
    });
  });

  it("does not flag keys that merely start with a reserved word", () => {
    expect(parseSessionKey("agent:main:global:x", defaults)?.isReserved).toBe(false);
  });
});
