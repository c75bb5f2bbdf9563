// What the platforms' live halves share (SPEC §21 Live); `live.ts` picks a channel's.

/**
 * The live half of a platform (SPEC §21 Live): what a chat shows while a run works, and the message a
 * reply is written into with `streaming: "edit"`. Every call is best effort: a refusal is `false` or
 * `undefined`, never a throw, and never fails the run.
 */
export interface PlatformLive {
  /** How often `typing` must be renewed to stay shown (ms); 0: once is enough. */
  typingEveryMs: number;
  /** Shows that the run works (Telegram `typing`, Slack's assistant status, Discord's typing); false: not shown. */
  typing(): Promise<boolean>;
  /**
   * Where `typing` showed nothing: a message that stands for the reply until it comes (Slack's "…",
   * Discord's deferred response); its id, which the reply then completes.
   */
  placeholder(): Promise<string | undefined>;
  /** Posts the first draft of the reply (plain text); its message id. */
  draft(text: string): Promise<string | undefined>;
  /** Replaces the draft's text (plain text). */
  edit(messageId: string, text: string): Promise<boolean>;
}

/** Where a run's reply goes, as the live half needs it (the run's reply target). */
export interface LiveTarget {
  channel: string;
  to: string;
  threadId?: string | number;
  /** The message the reply answers: the draft, which becomes the reply, quotes it (Telegram). */
  replyToMessageId?: string;
  interaction?: { token: string; expiresAt: number };
}

/** A live call gives up after this long: the run never waits on a platform that does not answer. */
export const LIVE_CALL_TIMEOUT_MS = 10_000;

/** The id a Discord interaction's own reply goes by: the draft is the deferred response itself. */
export const DISCORD_ORIGINAL = "@original";

/** A draft shown within the platform's limit: the start of the text, marked as going on. */
export const draftText = (text: string, limit: number): string =>
  text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
