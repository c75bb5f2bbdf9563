/**
 * Discord signs each interaction with the application's Ed25519 key: `X-Signature-Ed25519` (hex) over
 * `X-Signature-Timestamp` + the raw body, checked against the application's public key (WebCrypto's
 * Ed25519, as discord-interactions' `verifyKey` does, without the package).
 */
export async function verifyDiscord(
  publicKeyHex: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
): Promise<boolean> {
  const signature = fromHex(headers.signature ?? "");
  const publicKey = fromHex(publicKeyHex);
  if (signature?.length !== 64 || !publicKey || !headers.timestamp) return false;
  try {
    const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify(
      { name: "Ed25519" },
      key,
      signature,
      new TextEncoder().encode(headers.timestamp + body),
    );
  } catch {
    // A key WebCrypto refuses verifies nothing.
    return false;
  }
}

function fromHex(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}
