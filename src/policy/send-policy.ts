import type { SendPolicyConfig } from "../config/schema";
import { type KeyOptions, parseSessionKey } from "../keys";

export type SendDecision = "allow" | "deny";

/** What a send-policy rule can match a session on (SPEC §6). */
export interface SendPolicySubject {
  sessionKey: string;
  channel?: string;
  chatType?: string;
  /** The session's own override, set by PATCH or `/send on|off`. */
  override?: SendDecision;
}

/**
 * The one way a send-policy subject is built, for every send and post: the session (its key, recorded
 * chat type, override) and the channel the message would go through. A chat type the session did not
 * record comes from its key.
 */
export function sendPolicySubject(
  session: { sessionKey: string; chatType?: string; sendPolicy?: SendDecision },
  channel: string,
  keyOptions: KeyOptions,
): SendPolicySubject {
  const chatType = session.chatType ?? parseSessionKey(session.sessionKey, keyOptions)?.chatType;
  return {
    sessionKey: session.sessionKey,
    channel,
    ...(chatType ? { chatType } : {}),
    ...(session.sendPolicy ? { override: session.sendPolicy } : {}),
  };
}

/** The key without its `agent:<id>:` prefix, for `keyPrefix` rules. */
function stripAgentPrefix(key: string): string {
  const match = /^agent:[^:]+:(.*)$/.exec(key);
  return match?.[1] ?? key;
}

/** SPEC §6 resolveSendPolicy: override, then rules in order (deny first wins), then any allow, then default. */
export function resolveSendPolicy(
  policy: SendPolicyConfig | undefined,
  subject: SendPolicySubject,
): SendDecision {
  if (subject.override) return subject.override;
  if (!policy) return "allow";
  const key = subject.sessionKey.toLowerCase();
  let allowed = false;
  for (const { action, match } of policy.rules) {
    const matches =
      (match.channel === undefined || match.channel.toLowerCase() === subject.channel?.toLowerCase()) &&
      (match.chatType === undefined || match.chatType.toLowerCase() === subject.chatType?.toLowerCase()) &&
      (match.rawKeyPrefix === undefined || key.startsWith(match.rawKeyPrefix.toLowerCase())) &&
      (match.keyPrefix === undefined || stripAgentPrefix(key).startsWith(match.keyPrefix.toLowerCase()));
    if (!matches) continue;
    if (action === "deny") return "deny";
    allowed = true;
  }
  return allowed ? "allow" : (policy.default ?? "allow");
}
