import { describe, expect, it } from "vitest";
import { isUuidLike, looksLikeSessionKey } from "../../src/keys";
import { customMain, SAMPLE_UUID } from "./options";

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
    `hook:${SAMPLE_UUID}`,
    "node-mac",
    "node:mac",
    `subagent:${SAMPLE_UUID}`,
  ])("accepts %s", (input) => {
    expect(looksLikeSessionKey(input)).toBe(true);
  });

  it.each([
    "",
    "random-slug",
    SAMPLE_UUID,
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
    expect(isUuidLike(SAMPLE_UUID)).toBe(true);
  });

  it("accepts an upper-case UUID with surrounding spaces", () => {
    expect(isUuidLike(`  ${SAMPLE_UUID.toUpperCase()} `)).toBe(true);
  });

  it.each([
    "random-slug",
    `${SAMPLE_UUID}0`,
    SAMPLE_UUID.replaceAll("-", ""),
    `hook:${SAMPLE_UUID}`,
    "5f0c2a9e-8b1d-4c3e-9f7a-12345678zzzz",
  ])("rejects %s", (input) => {
    expect(isUuidLike(input)).toBe(false);
  });
});
