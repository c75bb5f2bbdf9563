import type { SwitchboardConfig } from "../../config/schema";
import type { ReplyTarget, SessionRecord } from "../record/record";
import { addPostIfAllowed } from "./posts";

/**
 * A busy mode (SPEC §21) answers several messages with one reply, which goes where one of them came
 * from. On Telegram and Slack the others need nothing: the reply lands in the same chat. A Discord
 * interaction, though, waits for its own answer (its deferred "thinking…" stays until its `@original` is
 * completed, and fails when the 15 minutes pass), so each one whose reply went elsewhere is completed
 * with a note saying where the answer is. One post per interaction (its id in the idempotency key).
 * True when the note is owed.
 */
export const SUPERSEDED_NOTES = {
  /** collect and interrupt: the newest message's interaction takes the reply. */
  later: "Answered below, together with your later message.",
  /** steer: the run in flight, started by an earlier message, answers. */
  earlier: "Answered above, together with your earlier message.",
} as const;

export function answerSuperseded(
  sql: SqlStorage,
  record: SessionRecord,
  config: SwitchboardConfig,
  superseded: { replyTo?: ReplyTarget | undefined; runId: string; note: keyof typeof SUPERSEDED_NOTES },
  now: number,
): boolean {
  const interaction = superseded.replyTo?.interaction;
  // An expired token could only post a new channel message: noise, not an answer.
  if (!superseded.replyTo || !interaction || interaction.expiresAt <= now) return false;
  const { replyToMessageId: _message, interaction: _interaction, ...target } = superseded.replyTo;
  return addPostIfAllowed(sql, config, record, {
    runId: superseded.runId,
    purpose: `superseded:${interaction.id}`,
    text: SUPERSEDED_NOTES[superseded.note],
    target,
    origin: { interaction: { token: interaction.token, expiresAt: interaction.expiresAt } },
  });
}
