import { parseSessionKey } from "./parse";
import { GLOBAL_REST } from "./rest";
import type { KeyOptions } from "./types";

/** The key callers see: the internal `agent:<id>:global` shows as the main key; all else unchanged. */
export function displayKey(key: string, options: KeyOptions): string {
  // The parsed rest is a piece of the lowercased key: a key without the word keeps its shape unparsed
  // (a list page shows 50 keys, and parsing each was a tenth of its CPU).
  if (!key.toLowerCase().includes(GLOBAL_REST)) return key;
  const parsed = parseSessionKey(key, options);
  if (parsed?.rest !== GLOBAL_REST) return key;
  return `agent:${parsed.agentId}:${options.mainKey}`;
}
