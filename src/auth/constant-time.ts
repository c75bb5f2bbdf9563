const encoder = new TextEncoder();

const digestOf = (secret: string) => crypto.subtle.digest("SHA-256", encoder.encode(secret));

/** Compares two secrets in constant time: both are hashed first, so even their lengths stay hidden. */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [equal] = await secretMatches(given, [expected]);
  return equal === true;
}

/**
 * `given` compared with each of `expected` as `secretsEqual` does, all of them whatever matches (timing
 * says nothing about which), with `given` hashed once and every hash taken at the same time.
 */
export async function secretMatches(given: string, expected: readonly string[]): Promise<boolean[]> {
  const [a, ...others] = await Promise.all([given, ...expected].map(digestOf));
  return others.map((b) => crypto.subtle.timingSafeEqual(a as ArrayBuffer, b));
}
