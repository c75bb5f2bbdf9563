/** What a standalone `/send …` message asks for: a session override, or clearing it (SPEC §6). */
export type SendCommand = { policy: "allow" | "deny" | null };

const WORDS: Record<string, SendCommand["policy"]> = {
  on: "allow",
  allow: "allow",
  off: "deny",
  deny: "deny",
  inherit: null,
  default: null,
  reset: null,
};

/** Parses `/send on|off|inherit` (and allow|deny|default|reset); anything else is not a command. */
export function parseSendCommand(text: string): SendCommand | undefined {
  const match = /^\/send\s+(\w+)$/i.exec(text.trim());
  const word = match?.[1]?.toLowerCase();
  return word !== undefined && word in WORDS ? { policy: WORDS[word] ?? null } : undefined;
}

/** The confirmation an owner gets back. */
export function sendCommandConfirmation(command: SendCommand): string {
  if (command.policy === "allow") return "Sending is on for this chat.";
  if (command.policy === "deny") return "Sending is off for this chat.";
  return "This chat now follows the default send policy.";
}
