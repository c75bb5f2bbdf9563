import { maskUnlessMasked } from "./mask-secret";

export { maskSecret } from "./mask-secret";

// One list of credential-ish field names, shared by the JSON-field pattern and `isCredentialKey`.
const CREDENTIAL_FIELD = "api[_-]?key|token|secret|password|access[_-]?token|refresh[_-]?token";
const CREDENTIAL_KEY = new RegExp(`^(?:${CREDENTIAL_FIELD})$`, "i");
const ENV_STYLE_NAME = /^[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)$/;

const PEM_PRIVATE_KEY =
  /(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)(?:[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----)|[\s\S]*$)/g;
const PEM_BODY = "…redacted…";

// Suffix in capitals (`OPENAI_API_KEY`), or lower-case words joined by `_` (`db_password`), so that
// `monkey=1` is not a credential.
const ENV_NAME = "(?:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD)|(?:[a-z0-9]+_)*(?:key|token|secret|password))";
const QUOTED_OR_BARE_VALUE = `(?:"([^"\\n]*)"|'([^'\\n]*)'|([^\\s"'\`]+))`;

// Minimum body lengths keep prose like `sk-learn` out and make a masked `sk-123…1234` unmatchable.
const TOKEN_PREFIXES: ReadonlyArray<[prefix: string, minBody: number]> = [
  ["sk-", 12],
  ["ghp_", 16],
  ["github_pat_", 16],
  ["xox[baprs]-", 10],
  ["xapp-", 10],
  ["gsk_", 16],
  ["AIza", 20],
  ["pplx-", 16],
  ["npm_", 16],
];

// Each pattern is global; the secret is whichever capture group matched, and it ends the match (bar a
// closing quote), so it is replaced at its last occurrence in the match. `needs` is a literal every
// match contains: most texts contain none, and a substring test is far cheaper than the regex (the
// history read spent most of its time here before, per `npm run bench:profile -- history200`).
interface SecretPattern {
  pattern: RegExp;
  /** False when no match is possible: `lower` is the text lower-cased. */
  needs: (text: string, lower: string) => boolean;
}
const credentialWord = (_: string, lower: string) =>
  lower.includes("key") || lower.includes("token") || lower.includes("secret") || lower.includes("password");

const secretPatterns: readonly SecretPattern[] = [
  {
    pattern: new RegExp(`(?<![\\w-])${ENV_NAME}[ \\t]*=[ \\t]*${QUOTED_OR_BARE_VALUE}`, "g"),
    needs: (text, lower) => text.includes("=") && credentialWord(text, lower),
  },
  {
    pattern: new RegExp(`"(?:${CREDENTIAL_FIELD})"\\s*:\\s*"((?:[^"\\\\\\n]|\\\\.)*)"`, "gi"),
    needs: (text, lower) => text.includes('"') && credentialWord(text, lower),
  },
  {
    pattern: new RegExp(
      `(?<![\\w-])--(?:[a-z0-9]+-)*(?:api-?key|token|secret|password)(?:[ \\t]+|=)(?!-)${QUOTED_OR_BARE_VALUE}`,
      "gi",
    ),
    needs: (text) => text.includes("--"),
  },
  // The header may sit in JSON (`"Authorization": "Bearer …"`); a scheme word alone is not a secret.
  {
    pattern:
      /\bAuthorization"?[ \t]*:[ \t]*"?(?:(?:Bearer|Basic|Token)[ \t]+)?(?!(?:Bearer|Basic|Token)\b)([^\s"']+)/gi,
    needs: (_, lower) => lower.includes("authorization"),
  },
  { pattern: /\bBearer[ \t]+([A-Za-z0-9._~+/=-]{18,})/gi, needs: (_, lower) => lower.includes("bearer") },
  { pattern: /(?<![\w-])(\d{8,10}:[A-Za-z0-9_-]{35})(?![\w-])/g, needs: (text) => text.includes(":") },
  // Switchboard's own credentials: a run token (`sbr1.<claims>.<signature>`, src/auth/run-token.ts) and a
  // grant token (`sbg_<grantId>.<secret>`, src/auth/grant-token.ts); a token cut short is masked too.
  {
    pattern: /(?<![\w.-])(sbr1\.[A-Za-z0-9_-]{16,}(?:\.[A-Za-z0-9_-]+)?)/g,
    needs: (text) => text.includes("sbr1."),
  },
  {
    pattern: /(?<![\w-])(sbg_[0-9a-f-]{8,}(?:\.[A-Za-z0-9_-]+)?)/g,
    needs: (text) => text.includes("sbg_"),
  },
  ...TOKEN_PREFIXES.map(([prefix, minBody]) => {
    const literal = prefix.replace(/\[.*$/, "");
    return {
      pattern: new RegExp(`(?<![\\w-])(${prefix}[A-Za-z0-9_-]{${minBody},})`, "g"),
      needs: (text: string) => text.includes(literal),
    };
  }),
];

/**
 * Masks credentials in free text (SPEC §5.2 step 2): env-style assignments, JSON credential fields, CLI
 * flags, bearer tokens, PEM private keys, well-known token prefixes and Switchboard's own run and grant
 * tokens. Idempotent: masked values are
 * never masked again.
 */
export function redactSecrets(text: string): { text: string; redacted: boolean } {
  let redacted = false;
  const lower = text.toLowerCase();
  let current = text;
  if (text.includes("PRIVATE KEY-----"))
    current = text.replace(PEM_PRIVATE_KEY, (block: string, begin: string, end: string | undefined) => {
      const replacement = end === undefined ? `${begin}\n${PEM_BODY}` : `${begin}\n${PEM_BODY}\n${end}`;
      if (replacement !== block) redacted = true;
      return replacement;
    });
  for (const { pattern, needs } of secretPatterns) {
    // A masked value keeps only the secret's own ends around an ellipsis, so masking never creates a
    // literal the original lacked: testing the original is enough.
    if (!needs(text, lower)) continue;
    current = current.replace(pattern, (match: string, ...rest: unknown[]) => {
      // `rest` is the capture groups, then the offset (a number), then the whole input.
      const captures = rest.slice(
        0,
        rest.findIndex((value) => typeof value === "number"),
      );
      const secret = captures.find((value): value is string => typeof value === "string");
      if (secret === undefined) return match;
      const masked = maskUnlessMasked(secret);
      if (!masked.redacted) return match;
      redacted = true;
      const at = match.lastIndexOf(secret);
      return match.slice(0, at) + masked.text + match.slice(at + secret.length);
    });
  }
  return { text: current, redacted };
}

/** Whether an object key names a credential, so a string stored under it is masked whole. */
export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key) || ENV_STYLE_NAME.test(key);
}

/** Redacts one string leaf of a JSON value; under a credential key the whole leaf is masked. */
export function redactJsonLeaf(key: string | undefined, leaf: string): { text: string; redacted: boolean } {
  if (key !== undefined && isCredentialKey(key)) return maskUnlessMasked(leaf);
  return redactSecrets(leaf);
}

/** Known secrets shorter than this are left alone: masking every occurrence of a few letters would mangle text. */
const MIN_KNOWN_SECRET_LENGTH = 8;

/**
 * `redactSecrets`, after masking every literal occurrence of secrets the caller holds (a runtime's API
 * key, a run token): a key need not have a shape any pattern knows. Apply it before any cut, since a cut
 * secret no longer matches itself.
 */
export function redactKnownSecrets(text: string, known: readonly (string | undefined)[]): string {
  let current = text;
  const secrets = known.filter(
    (secret): secret is string => (secret?.length ?? 0) >= MIN_KNOWN_SECRET_LENGTH,
  );
  // Longest first, so a secret that contains another is masked whole.
  for (const secret of secrets.sort((a, b) => b.length - a.length))
    if (current.includes(secret)) current = current.split(secret).join(maskUnlessMasked(secret).text);
  return redactSecrets(current).text;
}

/**
 * A JSON value with every string leaf redacted (under a credential key masked whole): tool arguments on
 * a run stream, a collector's structured result, anything structured that leaves the service.
 */
export function redactJson(value: unknown, key?: string): unknown {
  if (typeof value === "string") return redactJsonLeaf(key, value).text;
  if (Array.isArray(value)) return value.map((item) => redactJson(item));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, redactJson(item, name)]));
  return value;
}
