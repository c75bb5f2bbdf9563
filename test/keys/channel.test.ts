import { describe, expect, it } from "vitest";
import { deriveChannel, type ParsedSessionKey, parseSessionKey } from "../../src/keys";
import { defaults, SAMPLE_UUID } from "./options";

function parsed(key: string): ParsedSessionKey {
  const result = parseSessionKey(key, defaults);
  if (!result) throw new Error(`test key does not parse: ${key}`);
  return result;
}

describe("deriveChannel (SPEC §5.1 order)", () => {
  it.each([
    "agent:main:cron:daily",
    "agent:main:cron:daily:run:r1",
    `agent:main:hook:${SAMPLE_UUID}`,
    "agent:main:node-mac",
  ])("%s is internal even with a recorded channel", (key) => {
    expect(deriveChannel(parsed(key), { channel: "discord", lastChannel: "slack" })).toBe("internal");
  });

  it("prefers the recorded channel over everything else", () => {
    expect(
      deriveChannel(parsed("agent:main:discord:group:dev"), { channel: "webchat", lastChannel: "slack" }),
    ).toBe("webchat");
  });

  it("falls back to lastChannel", () => {
    expect(
      deriveChannel(parsed("agent:main:discord:group:dev"), { channel: null, lastChannel: "slack" }),
    ).toBe("slack");
  });

  it("falls back to the channel in a group key", () => {
    expect(deriveChannel(parsed("agent:main:discord:group:dev"), {})).toBe("discord");
  });

  it("falls back to the channel in a direct key", () => {
    expect(deriveChannel(parsed("agent:main:telegram:direct:42"), { channel: null, lastChannel: null })).toBe(
      "telegram",
    );
  });

  it("treats blank recorded values as missing", () => {
    expect(deriveChannel(parsed("agent:main:discord:group:dev"), { channel: "", lastChannel: "  " })).toBe(
      "discord",
    );
  });

  it("is unknown when nothing tells", () => {
    expect(deriveChannel(parsed("agent:main:main"), {})).toBe("unknown");
    expect(deriveChannel(parsed(`agent:ops:subagent:${SAMPLE_UUID}`), { channel: null })).toBe("unknown");
  });

  it("uses lastChannel for a main session", () => {
    expect(deriveChannel(parsed("agent:main:main"), { lastChannel: "telegram" })).toBe("telegram");
  });
});
