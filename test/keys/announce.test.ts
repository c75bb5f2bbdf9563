import { describe, expect, it } from "vitest";
import { announceTargetFromKey } from "../../src/keys";
import { defaults, globalScope, SAMPLE_UUID } from "./options";

const targetOf = (key: string) => announceTargetFromKey(key, defaults);

describe("SPEC §8 announce targets", () => {
  it("agent:main:discord:group:dev → discord, group:dev", () => {
    expect(targetOf("agent:main:discord:group:dev")).toEqual({ channel: "discord", to: "group:dev" });
  });

  it("agent:main:telegram:group:-100123:topic:99 → telegram, -100123, thread 99", () => {
    expect(targetOf("agent:main:telegram:group:-100123:topic:99")).toEqual({
      channel: "telegram",
      to: "-100123",
      threadId: "99",
    });
  });
});

describe("announce target choices beyond the SPEC", () => {
  it("telegram group without a topic uses the bare chat id", () => {
    expect(targetOf("agent:main:telegram:group:-100123")).toEqual({ channel: "telegram", to: "-100123" });
  });

  it("telegram channel uses the bare chat id", () => {
    expect(targetOf("agent:main:telegram:channel:-100777")).toEqual({ channel: "telegram", to: "-100777" });
  });

  it("telegram direct uses the bare peer id", () => {
    expect(targetOf("agent:main:telegram:direct:42")).toEqual({ channel: "telegram", to: "42" });
  });

  it("telegram dm reads like direct", () => {
    expect(targetOf("agent:main:telegram:dm:42")).toEqual({ channel: "telegram", to: "42" });
  });

  it("other channels prefix the chat type", () => {
    expect(targetOf("agent:main:slack:channel:c0123")).toEqual({ channel: "slack", to: "channel:c0123" });
  });

  it("other channels address a direct peer as direct:<peer>", () => {
    expect(targetOf("agent:main:discord:direct:42")).toEqual({ channel: "discord", to: "direct:42" });
  });

  it("other channels write a dm key as direct:<peer>", () => {
    expect(targetOf("agent:main:discord:dm:42")).toEqual({ channel: "discord", to: "direct:42" });
  });

  it("a Slack thread suffix becomes threadId", () => {
    expect(targetOf("agent:main:slack:channel:c0123:thread:1712.0042")).toEqual({
      channel: "slack",
      to: "channel:c0123",
      threadId: "1712.0042",
    });
  });

  it("a Discord thread suffix becomes threadId", () => {
    expect(targetOf("agent:main:discord:group:dev:thread:555")).toEqual({
      channel: "discord",
      to: "group:dev",
      threadId: "555",
    });
  });

  it("a topic suffix on another channel also becomes threadId", () => {
    expect(targetOf("agent:main:discord:group:dev:topic:9")).toEqual({
      channel: "discord",
      to: "group:dev",
      threadId: "9",
    });
  });

  it("accepts a key in any case and answers lower-cased", () => {
    expect(targetOf("AGENT:MAIN:Discord:Group:Dev")).toEqual({ channel: "discord", to: "group:dev" });
  });
});

describe("keys without an announce target", () => {
  it.each([
    "agent:main:main",
    "agent:main:cron:daily",
    `agent:main:hook:${SAMPLE_UUID}`,
    "agent:main:node-mac",
    `agent:ops:subagent:${SAMPLE_UUID}`,
    "agent:main:random-slug",
    "discord:group:dev",
    "not a key",
  ])("%s → undefined", (key) => {
    expect(targetOf(key)).toBeUndefined();
  });

  it("the shared global session has none", () => {
    expect(announceTargetFromKey("agent:main:global", globalScope)).toBeUndefined();
  });
});
