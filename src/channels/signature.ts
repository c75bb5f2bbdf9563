import { hmacSha256, toHex, verifyHmacSha256 } from "../auth/hmac";

/** Signatures older or newer than this are refused (SPEC §8: 5-minute tolerance). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function fromHex(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

/** `X-Switchboard-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. */
export async function signatureHeader(
  secret: string,
  body: string,
  unixSeconds = Math.floor(Date.now() / 1000),
): Promise<string> {
  return `t=${unixSeconds},v1=${toHex(await hmacSha256(secret, `${unixSeconds}.${body}`))}`;
}

/** Verifies a signature header against the raw body, within the tolerance window. */
export async function verifySignatureHeader(
  secret: string,
  header: string | undefined,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const parts = new Map(
    (header ?? "").split(",").map((part) => {
      const [name = "", ...value] = part.trim().split("=");
      return [name, value.join("=")] as const;
    }),
  );
  const timestamp = Number(parts.get("t"));
  const signature = fromHex(parts.get("v1") ?? "");
  if (!Number.isInteger(timestamp) || !signature) return false;
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return false;
  return verifyHmacSha256(secret, `${timestamp}.${body}`, signature.buffer as ArrayBuffer);
}
