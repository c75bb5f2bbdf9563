import { GLOBAL_REST, isCronRest, isHookRest, isNodeRest, parseChatRest } from "./rest";
import type { KeyOptions, SessionKind } from "./types";

/** The kind of a session from its key's `<rest>` (SPEC §1 table); `global` is the shared main session. */
export function classifyKind(rest: string, options: KeyOptions): SessionKind {
  const normalized = rest.toLowerCase();
  // The table lists both the literal `main` and the configured mainKey as main sessions.
  if (normalized === options.mainKey || normalized === "main" || normalized === GLOBAL_REST) return "main";
  if (isCronRest(normalized)) return "cron";
  if (isHookRest(normalized)) return "hook";
  if (isNodeRest(normalized)) return "node";
  const chat = parseChatRest(normalized);
  if (chat?.chatType === "group" || chat?.chatType === "channel") return "group";
  return "other";
}
