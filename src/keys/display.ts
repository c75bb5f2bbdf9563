import { parseSessionKey } from "./parse";
import { GLOBAL_REST } from "./rest";
import type { KeyOptions } from "./types";

/** The key callers see: the internal `agent:<id>:global` shows as the main key; all else unchanged. */
export function displayKey(key: string, options: KeyOptions): string {
  const parsed = parseSessionKey(key, options);
  if (parsed?.rest !== GLOBAL_REST) return key;
  return `agent:${parsed.agentId}:${options.mainKey}`;
}
