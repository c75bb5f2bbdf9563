import { describe, expect, it } from "vitest";
import { isUuidLike, looksLikeSessionKey } from "../../src/keys";
import { customMain, UUID } from "./options";

describe("looksLikeSessionKey", () => {
  it.each([
    "agent:main:main",
    "agent:ops:anything-at-all",
    "AGENT:Main:Main",
    "main",
    "discord:group:dev",
    "discord:channel:general",
    "telegram:direct:42",
    "telegram:dm:42",
    "telegram:group:-100123:topic:99",
    "cron:job-1",
    "cron:daily:run:r1",
    `hook:${UUID}`,
    "node-mac",
    "node:mac",
    `subagent:${UUID}`,
  ])("accepts %s", (input) => {
    expect(looksLikeSessionKey(input)).toBe(true);
  });

  it.each([
    "",
    "random-slug",
    UUID,
    "agent:main",
    "agent:bad id:main",
    "global",
    "current",
    "cron:",
    "discord:group:",
  ])("rejects %j", (input) => {
    expect(looksLikeSessionKey(input)).toBe(false);
  });

  it("accepts a custom mainKey only when given the options", () => {
    expect(looksLikeSessionKey("home")).toBe(false);
    expect(looksLikeSessionKey("home", customMain)).toBe(true);
  });
});

describe("isUuidLike", () => {
  it("accepts a lower-case UUID", () => {
    expect(isUuidLike(UUID)).toBe(true);
  });

  it("accepts an upper-case UUID with surrounding spaces", () => {
    expect(isUuidLike(`  ${UUID.toUpperCase()} `)).toBe(true);
  });

  it.each([
    "random-slug",
    `${UUID}0`,
    UUID.replaceAll("-", ""),
    `hook:${UUID}`,
    "5f0c2a9e-8b1d-4c3e-9f7a-12345678zzzz",
  ])("rejects %s", (input) => {
    expect(isUuidLike(input)).toBe(false);
  });
});
