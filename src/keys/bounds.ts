import type { z } from "zod";
import { MAX_SESSION_KEY_BYTES } from "../limits";
import { hasControlCharacter } from "../validation";

const encoder = new TextEncoder();

/**
 * Why input can never be a session key or sessionId (too long, a control character), checked before any
 * lookup; undefined when it may be one. Every key a caller gives passes here (canonicalizeKeyInput).
 */
export function keyInputProblem(input: string): string | undefined {
  // A string longer than the bound in UTF-16 units is longer in UTF-8 bytes too.
  if (input.length > MAX_SESSION_KEY_BYTES || encoder.encode(input).byteLength > MAX_SESSION_KEY_BYTES)
    return `session key longer than ${MAX_SESSION_KEY_BYTES} bytes`;
  if (hasControlCharacter(input)) return "session key contains a control character";
  return undefined;
}

/** `keyInputProblem` as a zod refinement, for the schemas a key enters by. */
export function refineKeyInput(input: string, ctx: z.RefinementCtx): void {
  const problem = keyInputProblem(input);
  if (problem) ctx.addIssue({ code: "custom", input, message: problem });
}
