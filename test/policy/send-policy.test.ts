import { describe, expect, it } from "vitest";
import type { SendPolicyConfig } from "../../src/config/schema";
import { resolveSendPolicy } from "../../src/policy/send-policy";
import { configFrom } from "../support";

/** A send policy as the config schema produces it. */
function policyOf(sendPolicy: Record<string, unknown>): SendPolicyConfig {
  const policy = configFrom({ session: { sendPolicy } }).session.sendPolicy;
  if (!policy) throw new Error("sendPolicy missing");
  return policy;
}

const discordGroup = { sessionKey: "agent:main:discord:group:dev", channel: "discord", chatType: "group" };
const telegramDm = { sessionKey: "agent:main:telegram:direct:42", channel: "telegram", chatType: "direct" };
const cron = { sessionKey: "agent:main:cron:daily" };

describe("resolveSendPolicy", () => {
  it("allows everything without a policy", () => {
    expect(resolveSendPolicy(undefined, discordGroup)).toBe("allow");
    expect(resolveSendPolicy(undefined, cron)).toBe("allow");
  });

  it("lets the session's override win over every rule", () => {
    const denyAll = policyOf({ default: "deny", rules: [{ action: "deny", match: {} }] });
    expect(resolveSendPolicy(denyAll, { ...discordGroup, override: "allow" })).toBe("allow");
    expect(resolveSendPolicy(undefined, { ...discordGroup, override: "deny" })).toBe("deny");
    const allowAll = policyOf({ rules: [{ action: "allow", match: {} }] });
    expect(resolveSendPolicy(allowAll, { ...discordGroup, override: "deny" })).toBe("deny");
  });

  it("denies on a channel + chatType match only when both match", () => {
    const policy = policyOf({
      rules: [{ action: "deny", match: { channel: "discord", chatType: "group" } }],
    });
    expect(resolveSendPolicy(policy, discordGroup)).toBe("deny");
    expect(resolveSendPolicy(policy, { ...discordGroup, chatType: "channel" })).toBe("allow");
    expect(resolveSendPolicy(policy, { ...discordGroup, channel: "slack" })).toBe("allow");
    expect(resolveSendPolicy(policy, { sessionKey: discordGroup.sessionKey })).toBe("allow");
  });

  it("matches keyPrefix against the key without agent:<id>:", () => {
    const policy = policyOf({ rules: [{ action: "deny", match: { keyPrefix: "cron:" } }] });
    expect(resolveSendPolicy(policy, cron)).toBe("deny");
    expect(resolveSendPolicy(policy, { sessionKey: "agent:research:cron:nightly" })).toBe("deny");
    expect(resolveSendPolicy(policy, discordGroup)).toBe("allow");
    const canonical = policyOf({ rules: [{ action: "deny", match: { keyPrefix: "agent:main:" } }] });
    expect(resolveSendPolicy(canonical, cron)).toBe("allow");
  });

  it("matches rawKeyPrefix against the canonical key", () => {
    const policy = policyOf({ rules: [{ action: "deny", match: { rawKeyPrefix: "agent:main:discord:" } }] });
    expect(resolveSendPolicy(policy, discordGroup)).toBe("deny");
    expect(resolveSendPolicy(policy, { ...discordGroup, sessionKey: "agent:ops:discord:group:dev" })).toBe(
      "allow",
    );
    const stripped = policyOf({ rules: [{ action: "deny", match: { rawKeyPrefix: "discord:" } }] });
    expect(resolveSendPolicy(stripped, discordGroup)).toBe("allow");
  });

  it("needs every matcher a rule sets", () => {
    const policy = policyOf({
      rules: [{ action: "deny", match: { channel: "discord", keyPrefix: "discord:group:ops" } }],
    });
    expect(resolveSendPolicy(policy, discordGroup)).toBe("allow");
    expect(
      resolveSendPolicy(policy, { ...discordGroup, sessionKey: "agent:main:discord:group:ops-alerts" }),
    ).toBe("deny");
  });

  it("returns deny at the first matching deny, even after a matching allow", () => {
    const policy = policyOf({
      rules: [
        { action: "allow", match: { channel: "discord" } },
        { action: "deny", match: { chatType: "group" } },
      ],
    });
    expect(resolveSendPolicy(policy, discordGroup)).toBe("deny");
  });

  it("allows after the loop when an allow matched, even with default deny", () => {
    const policy = policyOf({
      default: "deny",
      rules: [
        { action: "allow", match: { channel: "telegram" } },
        { action: "deny", match: { channel: "discord" } },
      ],
    });
    expect(resolveSendPolicy(policy, telegramDm)).toBe("allow");
    expect(resolveSendPolicy(policy, discordGroup)).toBe("deny");
    expect(resolveSendPolicy(policy, cron)).toBe("deny");
  });

  it("falls back to default, which defaults to allow", () => {
    const rules = [{ action: "deny", match: { channel: "slack" } }];
    expect(resolveSendPolicy(policyOf({ rules }), discordGroup)).toBe("allow");
    expect(resolveSendPolicy(policyOf({ default: "allow", rules }), discordGroup)).toBe("allow");
    expect(resolveSendPolicy(policyOf({ default: "deny", rules }), discordGroup)).toBe("deny");
    expect(resolveSendPolicy(policyOf({ default: "deny" }), discordGroup)).toBe("deny");
  });

  it("matches case-insensitively", () => {
    const policy = policyOf({
      rules: [
        { action: "deny", match: { channel: "Discord" } },
        { action: "deny", match: { keyPrefix: "CRON:" } },
        { action: "deny", match: { rawKeyPrefix: "AGENT:MAIN:TELEGRAM:" } },
      ],
    });
    expect(resolveSendPolicy(policy, { ...discordGroup, channel: "DISCORD" })).toBe("deny");
    expect(resolveSendPolicy(policy, { sessionKey: "agent:main:Cron:Daily" })).toBe("deny");
    expect(resolveSendPolicy(policy, telegramDm)).toBe("deny");
    expect(resolveSendPolicy(policy, { sessionKey: "agent:main:slack:group:x", channel: "slack" })).toBe(
      "allow",
    );
  });

  it("matches chatType case-insensitively against the session's", () => {
    const policy = policyOf({ rules: [{ action: "deny", match: { chatType: "direct" } }] });
    expect(resolveSendPolicy(policy, { ...telegramDm, chatType: "DIRECT" })).toBe("deny");
  });
});
