import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load";
import { AppError } from "../../src/errors";
import { allowedWebhook, assertAllowedWebhook, webhookOrigin } from "../../src/webhooks/allowed-origin";

const allowing = (...allowedOrigins: string[]) => {
  const parsed = parseConfig(JSON.stringify({ webhooks: { allowedOrigins } }));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
};

describe("webhookOrigin: the origin after normalizing (SPEC §22)", () => {
  it.each([
    ["https://hooks.example.com/path?q=1#f", "https://hooks.example.com"],
    ["https://hooks.example.com:443/x", "https://hooks.example.com"],
    ["http://hooks.example.com:80/x", "http://hooks.example.com"],
    ["https://hooks.example.com:8443/x", "https://hooks.example.com:8443"],
    ["http://hooks.example.com:443/x", "http://hooks.example.com:443"],
    ["HTTPS://HOOKS.Example.COM/X", "https://hooks.example.com"],
    ["https://hooks.example.com./x", "https://hooks.example.com"],
    ["https://bücher.example/x", "https://xn--bcher-kva.example"],
    ["http://0x7f.1:8080/", "http://127.0.0.1:8080"],
    ["http://2130706433/", "http://127.0.0.1"],
    ["http://[0:0:0:0:0:0:0:1]:9000/", "http://[::1]:9000"],
  ])("%s → %s", (url, origin) => {
    expect(webhookOrigin(url)).toEqual({ ok: true, origin });
  });

  it.each([
    ["not a url", "is not a URL"],
    ["ftp://hooks.example.com/", "is not http or https"],
    ["javascript:alert(1)", "is not http or https"],
    ["file:///etc/passwd", "is not http or https"],
    ["data:text/plain,hi", "is not http or https"],
    ["https://user@hooks.example.com/", "user name or password"],
    ["https://user:pw@hooks.example.com/", "user name or password"],
    ["https://:pw@hooks.example.com/", "user name or password"],
    ["https://@hooks.example.com/", "user name or password"],
    ["https://hooks.example.com@evil.example/", "user name or password"],
  ])("refuses %s", (url, why) => {
    const result = webhookOrigin(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(why);
  });
});

describe("allowedWebhook: only the configured origins", () => {
  const config = allowing("https://hooks.example.com", "http://127.0.0.1:8787/");

  it("allows a URL of an allowed origin, however it is spelled", () => {
    for (const url of [
      "https://hooks.example.com/a",
      "https://HOOKS.example.com:443/b",
      "https://hooks.example.com./c",
      "http://127.0.0.1:8787/d",
      "http://0x7f000001:8787/e",
    ])
      expect(allowedWebhook(url, config).ok, url).toBe(true);
  });

  it("refuses another scheme, port or host of the same name", () => {
    for (const url of [
      "http://hooks.example.com/a",
      "https://hooks.example.com:8443/a",
      "https://evil.hooks.example.com/a",
      "https://hooks.example.com.evil.example/a",
      "http://127.0.0.1:8788/",
      "http://localhost:8787/",
      "https://hooks.example.com@evil.example/",
    ])
      expect(allowedWebhook(url, config).ok, url).toBe(false);
  });

  it("allows nothing by default", () => {
    expect(allowedWebhook("https://hooks.example.com/", allowing()).ok).toBe(false);
  });

  it("assertAllowedWebhook is a 400 naming the field", () => {
    let caught: unknown;
    try {
      assertAllowedWebhook("https://elsewhere.example/", config, "delivery.url");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(400);
    expect((caught as AppError).message).toMatch(
      /^delivery\.url: origin https:\/\/elsewhere\.example is not in/,
    );
    expect(assertAllowedWebhook("https://hooks.example.com/x", config)).toBe("https://hooks.example.com");
  });
});

describe("webhooks.allowedOrigins in the configuration", () => {
  it("normalizes each origin", () => {
    expect(allowing("HTTPS://Hooks.Example.com:443/").webhooks.allowedOrigins).toEqual([
      "https://hooks.example.com",
    ]);
  });

  it.each([
    "https://hooks.example.com/path",
    "https://hooks.example.com/?q",
    "https://user@hooks.example.com",
    "ftp://hooks.example.com",
    "hooks.example.com",
  ])("refuses %s, naming the entry", (entry) => {
    const parsed = parseConfig(JSON.stringify({ webhooks: { allowedOrigins: [entry] } }));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain("webhooks.allowedOrigins[0]");
  });
});
