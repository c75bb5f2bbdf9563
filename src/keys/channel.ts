import type { ParsedSessionKey } from "./types";

// Internal sessions are started by the service itself, so no recorded channel could describe them.
const INTERNAL_KINDS: ReadonlySet<ParsedSessionKey["kind"]> = new Set(["cron", "hook", "node"]);

/**
 * The `channel` field of a session row (SPEC §5.1): `internal` for cron/hook/node sessions, else the
 * recorded channel, else `lastChannel`, else the channel in the key, else `unknown`.
 */
export function deriveChannel(
  parsed: ParsedSessionKey,
  recorded: { channel?: string | null; lastChannel?: string | null },
): string {
  if (INTERNAL_KINDS.has(parsed.kind)) return "internal";
  return nonBlank(recorded.channel) ?? nonBlank(recorded.lastChannel) ?? parsed.channel ?? "unknown";
}

// A blank recorded value carries no information, so it falls through like a missing one.
function nonBlank(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
