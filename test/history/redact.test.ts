import { describe, expect, it } from "vitest";
import { maskSecret, redactJsonLeaf, redactKnownSecrets, redactSecrets } from "../../src/history/redact";

function redacted(text: string): string {
  return redactSecrets(text).text;
}

describe("maskSecret", () => {
  it("masks the SPEC example to first 6 + … + last 4", () => {
    expect(maskSecret("sk-1234567890abcdef1234")).toBe("sk-123…1234");
  });

  it("masks a 17-char secret whole and an 18-char secret partially", () => {
    expect(maskSecret("abcdefghijklmnopq")).toBe("***");
    expect(maskSecret("abcdefghijklmnopqr")).toBe("abcdef…opqr");
  });
});

describe("redactSecrets: assignments, fields, flags, headers", () => {
  it.each([
    ["OPENAI_API_KEY=sk-1234567890abcdef1234", "OPENAI_API_KEY=sk-123…1234"],
    ['export GITHUB_TOKEN="ghp_abcdefghijklmnopqrstuvwxyz0123456789"', 'export GITHUB_TOKEN="ghp_ab…6789"'],
    ["DB_PASSWORD='hunter2' next", "DB_PASSWORD='***' next"],
    ["APP_SECRET = abcdefghijklmnopqrstuvwx", "APP_SECRET = abcdef…uvwx"],
    ["db_password=hunter2", "db_password=***"],
  ])("env-style %j", (input, expected) => {
    expect(redacted(input)).toBe(expected);
  });

  it("does not treat a word that merely ends in 'key' as a credential name", () => {
    expect(redactSecrets("monkey=banana turkey=1")).toEqual({
      text: "monkey=banana turkey=1",
      redacted: false,
    });
  });

  it.each([
    ['{"apiKey":"abcdefghijklmnopqrstuvwx"}', '{"apiKey":"abcdef…uvwx"}'],
    ['{"token": "short"}', '{"token": "***"}'],
    ['{"secret":"abcdefghijklmnopqrstuvwx"}', '{"secret":"abcdef…uvwx"}'],
    ['{"password":"pw\\"quoted"}', '{"password":"***"}'],
    [
      '{"accessToken":"abcdefghijklmnopqrstuvwx","refreshToken":"r1"}',
      '{"accessToken":"abcdef…uvwx","refreshToken":"***"}',
    ],
    ['{"name":"abcdefghijklmnopqrstuvwx"}', '{"name":"abcdefghijklmnopqrstuvwx"}'],
  ])("JSON field %j", (input, expected) => {
    expect(redacted(input)).toBe(expected);
  });

  it.each([
    ["tool --api-key abcdefghijklmnopqrstuvwx run", "tool --api-key abcdef…uvwx run"],
    ["tool --token=hunter2", "tool --token=***"],
    ['tool --secret "two words"', 'tool --secret "***"'],
    ["tool --password hunter2", "tool --password ***"],
    ["tool --token --verbose", "tool --token --verbose"],
  ])("CLI flag %j", (input, expected) => {
    expect(redacted(input)).toBe(expected);
  });

  it("masks the credential of an Authorization header", () => {
    expect(redacted("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig")).toBe(
      "Authorization: Bearer eyJhbG….sig",
    );
    expect(redacted("Authorization: Bearer abc")).toBe("Authorization: Bearer ***");
    expect(redacted('{"Authorization": "Bearer abc"}')).toBe('{"Authorization": "Bearer ***"}');
  });

  it("masks a bare Bearer token of 18 or more chars only", () => {
    expect(redacted("use Bearer abcdefghijklmnopqr now")).toBe("use Bearer abcdef…opqr now");
    expect(redactSecrets("use Bearer abcdefghijklmnopq now")).toEqual({
      text: "use Bearer abcdefghijklmnopq now",
      redacted: false,
    });
  });
});

describe("redactSecrets: PEM private keys", () => {
  it("keeps the first and last line and replaces the body", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAKC\n-----END RSA PRIVATE KEY-----";
    expect(redacted(`key:\n${pem}\ndone`)).toBe(
      "key:\n-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----\ndone",
    );
  });

  it("hides the rest of a PEM block that never ends", () => {
    expect(redacted("-----BEGIN PRIVATE KEY-----\nMIIEow AIzaSyA1234567890abcdefghij")).toBe(
      "-----BEGIN PRIVATE KEY-----\n…redacted…",
    );
  });

  it("leaves public keys alone", () => {
    const pem = "-----BEGIN PUBLIC KEY-----\nMIIBIj\n-----END PUBLIC KEY-----";
    expect(redacted(pem)).toBe(pem);
  });
});

describe("redactSecrets: well-known token prefixes", () => {
  it.each([
    ["sk-1234567890abcdef1234", "sk-123…1234"],
    ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_ab…6789"],
    ["github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github…mnop"],
    ["xoxb-1234567890-abcdefghij", "xoxb-1…ghij"],
    ["xapp-1-A0123456789-abcdef", "xapp-1…cdef"],
    ["gsk_abcdefghijklmnopqrstuv", "gsk_ab…stuv"],
    ["AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSy…rstu"],
    ["pplx-abcdefghijklmnopqrstuv", "pplx-a…stuv"],
    ["npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_ab…6789"],
    ["123456789:AAbbccddeeffgghhiijjkkllmmnnooppqqr", "123456…pqqr"],
  ])("%s", (token, expected) => {
    expect(redactSecrets(`token is ${token}.`)).toEqual({ text: `token is ${expected}.`, redacted: true });
  });

  it("leaves prose that only looks like a prefix alone", () => {
    const text = "We use sk-learn and the task-runner; npm_config is set.";
    expect(redactSecrets(text)).toEqual({ text, redacted: false });
  });
});

const RUN_TOKEN = "sbr1.eyJhZ2VudElkIjoibWFpbiJ9.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ";
const GRANT_TOKEN = "sbg_3f2b8c1e-1a2b-4c3d-9e8f-0123456789ab.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde";

describe("redactSecrets: Switchboard's own tokens", () => {
  it.each([
    ["a run token", RUN_TOKEN, "sbr1.e…NOPQ"],
    ["a run token cut after its claims", "sbr1.eyJhZ2VudElkIjoibWFpbiJ9.abc", "sbr1.e….abc"],
    ["a grant token", GRANT_TOKEN, "sbg_3f…bcde"],
    ["a grant token cut after its id", "sbg_3f2b8c1e-1a2b-4c3d-9e8f-0123456789ab", "sbg_3f…89ab"],
  ])("%s", (_, token, expected) => {
    expect(redactSecrets(`refused ${token}.`)).toEqual({ text: `refused ${expected}.`, redacted: true });
  });

  it("leaves words that only start like one alone", () => {
    const text = "sbr1 is the prefix; sbr1.short and sbg_ are not tokens.";
    expect(redactSecrets(text)).toEqual({ text, redacted: false });
  });
});

describe("redactKnownSecrets", () => {
  it("masks every occurrence of a secret with no known shape, then the known shapes", () => {
    const key = "fmk-0123456789abcdefghijklmnopqrstuv";
    expect(redactKnownSecrets(`bad key ${key} (${key}); also sk-1234567890abcdef1234`, [key])).toBe(
      "bad key fmk-01…stuv (fmk-01…stuv); also sk-123…1234",
    );
  });

  it("masks the longest secret first and leaves short or missing ones alone", () => {
    const outer = "outer-secret-0123456789-inner-secret";
    expect(redactKnownSecrets(`${outer} and inner-secret`, [undefined, "inner-secret", outer, "abc"])).toBe(
      "outer-…cret and ***",
    );
    expect(redactKnownSecrets("abc stays", ["abc"])).toBe("abc stays");
  });
});

describe("redactSecrets: idempotence", () => {
  const sample = [
    "OPENAI_API_KEY=sk-1234567890abcdef1234",
    'export GITHUB_TOKEN="ghp_abcdefghijklmnopqrstuvwxyz0123456789"',
    '{"apiKey":"abcdefghijklmnopqrstuvwx","token":"x"}',
    "tool --api-key=abcdefghijklmnopqrstuvwx --token short",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig",
    "Bearer abcdefghijklmnopqrstuvwxyz",
    "-----BEGIN EC PRIVATE KEY-----\nMHcCAQ\n-----END EC PRIVATE KEY-----",
    "bot 123456789:AAbbccddeeffgghhiijjkkllmmnnooppqqr xoxb-1234567890-abcdefghij",
    `run ${RUN_TOKEN} grant ${GRANT_TOKEN}`,
  ].join("\n");

  it("changes nothing on a second pass", () => {
    const once = redactSecrets(sample);
    expect(once.redacted).toBe(true);
    expect(redactSecrets(once.text)).toEqual({ text: once.text, redacted: false });
  });
});

describe("redactJsonLeaf", () => {
  it("masks a whole leaf under a credential-named key", () => {
    expect(redactJsonLeaf("apiKey", "plain-value")).toEqual({ text: "***", redacted: true });
    expect(redactJsonLeaf("OPENAI_API_KEY", "abcdefghijklmnopqrstuvwx")).toEqual({
      text: "abcdef…uvwx",
      redacted: true,
    });
  });

  it("redacts patterns in a leaf under any other key", () => {
    expect(redactJsonLeaf("command", "curl -H 'Authorization: Bearer abc'")).toEqual({
      text: "curl -H 'Authorization: Bearer ***'",
      redacted: true,
    });
    expect(redactJsonLeaf("path", "/tmp")).toEqual({ text: "/tmp", redacted: false });
  });
});
