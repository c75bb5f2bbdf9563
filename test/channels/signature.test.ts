import { describe, expect, it } from "vitest";
import {
  SIGNATURE_TOLERANCE_SECONDS,
  signatureHeader,
  verifySignatureHeader,
} from "../../src/channels/signature";

const SECRET = "test-secret";
const BODY = JSON.stringify({ hello: "world" });
const T = 1_700_000_000;
// HMAC-SHA256("test-secret", '1700000000.{"hello":"world"}'), computed outside the Worker with Node's crypto.
const KNOWN_HEX = "f85455a1b55ea86f7a15f5f9923d0abc4b888da84ec485f2ff358f427776beca";

describe("signatureHeader", () => {
  it("is t=<unix>,v1=<hex HMAC-SHA256 of t.body>", async () => {
    expect(await signatureHeader(SECRET, BODY, T)).toBe(`t=${T},v1=${KNOWN_HEX}`);
  });

  it("defaults to the current time", async () => {
    const before = Math.floor(Date.now() / 1000);
    const header = await signatureHeader(SECRET, BODY);
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });
});

describe("verifySignatureHeader", () => {
  it("accepts its own signature (round trip) and a known one", async () => {
    expect(await verifySignatureHeader(SECRET, await signatureHeader(SECRET, BODY), BODY)).toBe(true);
    expect(await verifySignatureHeader(SECRET, `t=${T},v1=${KNOWN_HEX}`, BODY, T)).toBe(true);
    expect(await verifySignatureHeader(SECRET, `t=${T},v1=${KNOWN_HEX.toUpperCase()}`, BODY, T)).toBe(true);
    expect(await verifySignatureHeader(SECRET, ` t=${T} , v1=${KNOWN_HEX} `, BODY, T)).toBe(true);
  });

  it("allows 300 s of clock difference in both directions, not a second more", async () => {
    expect(SIGNATURE_TOLERANCE_SECONDS).toBe(300);
    const header = await signatureHeader(SECRET, BODY, T);
    expect(await verifySignatureHeader(SECRET, header, BODY, T + 300)).toBe(true);
    expect(await verifySignatureHeader(SECRET, header, BODY, T + 301)).toBe(false);
    expect(await verifySignatureHeader(SECRET, header, BODY, T - 300)).toBe(true);
    expect(await verifySignatureHeader(SECRET, header, BODY, T - 301)).toBe(false);
  });

  it("refuses a tampered body, another secret, or a re-dated signature", async () => {
    const header = await signatureHeader(SECRET, BODY, T);
    expect(await verifySignatureHeader(SECRET, header, BODY.replace("world", "World"), T)).toBe(false);
    expect(await verifySignatureHeader(SECRET, header, `${BODY} `, T)).toBe(false);
    expect(await verifySignatureHeader("other-secret", header, BODY, T)).toBe(false);
    expect(await verifySignatureHeader(SECRET, header.replace(`t=${T}`, `t=${T + 1}`), BODY, T)).toBe(false);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["garbage", "garbage"],
    ["no t", `v1=${KNOWN_HEX}`],
    ["no v1", `t=${T}`],
    ["t not a number", `t=soon,v1=${KNOWN_HEX}`],
    ["t not an integer", `t=${T}.5,v1=${KNOWN_HEX}`],
    ["v1 empty", `t=${T},v1=`],
    ["v1 not hex", `t=${T},v1=${"zz".repeat(32)}`],
    ["v1 odd length", `t=${T},v1=${KNOWN_HEX.slice(1)}`],
    ["v1 truncated", `t=${T},v1=${KNOWN_HEX.slice(0, 62)}`],
    ["v1 too long", `t=${T},v1=${KNOWN_HEX}00`],
    ["other scheme", `t=${T},v0=${KNOWN_HEX}`],
  ])("refuses a header that is %s", async (_shape, header) => {
    expect(await verifySignatureHeader(SECRET, header, BODY, T)).toBe(false);
  });
});
