import { secretsEqual } from "../../auth/constant-time";

/**
 * Telegram sends the `secret_token` given to `setWebhook` back in `X-Telegram-Bot-Api-Secret-Token`;
 * compared in constant time against each accepted secret (the derived key has two during a rotation).
 */
export async function verifyTelegram(
  header: string | undefined,
  secrets: readonly string[],
): Promise<boolean> {
  if (!header) return false;
  let valid = false;
  for (const secret of secrets) valid = (await secretsEqual(header, secret)) || valid;
  return valid;
}
