import { secretsEqual } from "../../auth/constant-time";
import { hmacSha256, toHex } from "../../auth/hmac";

/** Slack refuses replays older than five minutes; so do we (its own recommendation). */
export const SLACK_TOLERANCE_SECONDS = 300;

/**
 * Slack's v0 signature: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<body>">` with the
 * app's signing secret, `X-Slack-Request-Timestamp` within five minutes of now.
 */
export async function verifySlack(
  signingSecret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const timestamp = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(timestamp)) return false;
  if (Math.abs(nowSeconds - timestamp) > SLACK_TOLERANCE_SECONDS) return false;
  return secretsEqual(headers.signature, await slackSignature(signingSecret, timestamp, body));
}

/** The header a Slack request carries: for the tests' real signatures, and any client that signs like Slack. */
export async function slackSignature(
  signingSecret: string,
  timestamp: number,
  body: string,
): Promise<string> {
  return `v0=${toHex(await hmacSha256(signingSecret, `v0:${timestamp}:${body}`))}`;
}
