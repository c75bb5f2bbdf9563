import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config/load";
import type { DeliveryContext, SessionRecord } from "../../../src/session/api";
import { announceTarget } from "../../../src/session/writes/posts";

const loaded = parseConfig(env.SWITCHBOARD_CONFIG);
if (!loaded.ok) throw new Error(loaded.error);
const config = loaded.config;

function record(sessionKey: string, deliveryContext?: DeliveryContext): SessionRecord {
  return {
    sessionKey,
    sessionId: crypto.randomUUID(),
    agentId: "main",
    createdAt: 1,
    updatedAt: 1,
    spawnDepth: 0,
    version: 1,
    ...(deliveryContext ? { deliveryContext } : {}),
  };
}

describe("announce target of a session (SPEC §8): from its key, spelled as its chat records it", () => {
  it("takes the key's target, with the recorded case of the same chat's ids", () => {
    const recorded = { channel: "slack", to: "channel:C024BE91L", threadId: "1712.00AB", accountId: "T1" };
    expect(
      announceTarget(record("agent:main:slack:channel:c024be91l:thread:1712.00ab", recorded), config),
    ).toEqual({
      channel: "slack",
      to: "channel:C024BE91L",
      threadId: "1712.00AB",
    });
  });

  it("keeps the key's target when nothing was recorded, or the record is another chat", () => {
    const key = "agent:main:discord:group:dev";
    expect(announceTarget(record(key), config)).toEqual({ channel: "discord", to: "group:dev" });
    expect(announceTarget(record(key, { channel: "discord", to: "group:OTHER" }), config)).toEqual({
      channel: "discord",
      to: "group:dev",
    });
    expect(announceTarget(record(key, { channel: "telegram", to: "group:DEV" }), config)).toEqual({
      channel: "discord",
      to: "group:dev",
    });
  });

  it("keeps the SPEC's string thread id from the key (telegram topic)", () => {
    const key = "agent:main:telegram:group:-100123:topic:99";
    expect(announceTarget(record(key, { channel: "telegram", to: "-100123", threadId: 99 }), config)).toEqual(
      {
        channel: "telegram",
        to: "-100123",
        threadId: "99",
      },
    );
  });

  it("uses the delivery context of a session whose key names no chat", () => {
    const context = { channel: "webchat", to: "direct:Visitor", accountId: "site-1" };
    expect(announceTarget(record("agent:main:main", context), config)).toEqual(context);
    expect(announceTarget(record("agent:main:main"), config)).toBeUndefined();
  });
});
