import type { SwitchboardConfig } from "../../config/schema";
import { type PlatformLive, platformLive, streamingOf } from "../../platforms/live";
import { owesEarlierPost } from "../store/delivery-store";
import { type LiveDraft, liveDraft, saveLiveDraft } from "../store/live-drafts";
import type { RunRow } from "../store/run-store";
import { channelAddress } from "../writes/posts";

/** A draft is edited at most once a second (SPEC §21 Live), by the object's clock. */
export const EDIT_EVERY_MS = 1_000;

/** What to do with the reply's text so far: post its first draft, edit the draft, or wait. */
export function draftStep(
  draft: LiveDraft | undefined,
  text: string,
  now: number,
): "draft" | "edit" | "wait" {
  if (!text.trim()) return "wait";
  if (!draft) return "draft";
  if (draft.shown === text || now - draft.editedAt < EDIT_EVERY_MS) return "wait";
  return "edit";
}

/**
 * A run's reply as the chat sees it while the run works (SPEC §21 Live): typing (renewed as the run's
 * own events come, never on a timer), a placeholder where the platform has no typing, and with
 * `streaming: "edit"` the reply's text so far in one message, edited at most once a second. The draft's
 * message is recorded (`live_draft`), so the run's final reply edits it through the ledger and a run
 * that ends without a reply retracts it (writes/run-ending.ts). No message is posted while an earlier
 * run's post to the chat is still owed (the chat's replies keep the order of its messages, SPEC §21):
 * typing goes on, and the draft starts once that post is delivered (else the reply goes out through the
 * ledger, after it, as with `streaming: "off"`). One platform call at a time; a call
 * still out when an event comes is not waited for (the next event catches up); a refusal changes nothing
 * but what the chat shows.
 */
export class LiveReply {
  readonly #live: PlatformLive;
  readonly #edit: boolean;
  readonly #sql: SqlStorage;
  readonly #runId: string;
  /** The chat as the ledger names it: where an earlier post may still be owed. */
  readonly #chat: string;
  readonly #aborted: AbortSignal | undefined;
  #text = "";
  #typedAt = Number.NEGATIVE_INFINITY;
  /** The reply's text is showing: typing has done its work (Telegram clears it on the bot's message). */
  #showing = false;
  #call: Promise<void> | undefined;
  #ended = false;

  /** `aborted`: the run's abort signal; a run killed (interrupted, timed out) shows nothing more. */
  constructor(
    live: PlatformLive,
    edit: boolean,
    sql: SqlStorage,
    run: { runId: string; chat: string },
    aborted?: AbortSignal,
  ) {
    this.#live = live;
    this.#edit = edit;
    this.#sql = sql;
    this.#runId = run.runId;
    this.#chat = run.chat;
    this.#aborted = aborted;
  }

  /** The run starts (or resumes): typing, else the placeholder (unless a draft is there already). */
  start(now: number): void {
    this.#typedAt = now;
    this.#attempt(async () => {
      if (await this.#live.typing()) return;
      if (liveDraft(this.#sql, this.#runId) || this.#behind()) return;
      const id = await this.#live.placeholder();
      // Recorded even when the run ended meanwhile: its reply completes the placeholder, never beside it.
      if (id) saveLiveDraft(this.#sql, this.#runId, { messageId: id, editedAt: now, shown: "" });
    });
  }

  /** One of the run's events (a step, a tool call, a piece of text): typing is renewed when due. */
  progress(now: number): void {
    const every = this.#live.typingEveryMs;
    if (every <= 0 || this.#showing || now - this.#typedAt < every) return;
    if (this.#attempt(() => this.#live.typing().then(() => undefined))) this.#typedAt = now;
  }

  /** A piece of the reply's safe view (`reset`: a retried attempt writes it again from the start). */
  stream(data: { text: string; reset?: true }, now: number): void {
    this.#text = data.reset ? "" : this.#text + data.text;
    if (this.#edit) this.#draft(now);
    this.progress(now);
  }

  /** The run is over: nothing more is sent, and the call still out is waited for (its draft recorded). */
  async settle(): Promise<void> {
    this.#ended = true;
    await this.#call;
  }

  #draft(now: number): void {
    const text = this.#text;
    const draft = liveDraft(this.#sql, this.#runId);
    const step = draftStep(draft, text, now);
    if (step === "wait" || (step === "draft" && this.#behind())) return;
    this.#attempt(async () => {
      const id = draft
        ? (await this.#live.edit(draft.messageId, text))
          ? draft.messageId
          : undefined
        : await this.#live.draft(text);
      if (!id) return;
      saveLiveDraft(this.#sql, this.#runId, { messageId: id, editedAt: now, shown: text });
      this.#showing = true;
    });
  }

  /** An earlier run's post to this chat is still owed: a new message now would come above it. */
  #behind(): boolean {
    return owesEarlierPost(this.#sql, this.#chat, this.#runId);
  }

  /**
   * Starts `call` unless one is out or the run is over; true when it was started. An aborted run is
   * over: what its runtime still writes while it stops is never shown (SPEC §21 busy `interrupt`: the
   * killed run's partial reply is never posted; a draft it showed before is retracted at its end).
   */
  #attempt(call: () => Promise<void>): boolean {
    if (this.#call || this.#ended || this.#aborted?.aborted) return false;
    this.#call = call()
      .catch((cause) => console.warn(`run ${this.#runId}: a live platform call failed`, cause))
      .finally(() => {
        this.#call = undefined;
      });
    return true;
  }
}

/** The live side of a run that answers a platform chat, or undefined (no chat, a webhook channel). */
export function liveReplyFor(
  env: Env,
  config: SwitchboardConfig,
  sql: SqlStorage,
  run: RunRow,
  aborted?: AbortSignal,
): LiveReply | undefined {
  if (!run.replyTo) return undefined;
  const live = platformLive(env, config, run.replyTo);
  if (!live) return undefined;
  const edit = streamingOf(config, run.replyTo.channel) === "edit";
  return new LiveReply(live, edit, sql, { runId: run.runId, chat: channelAddress(run.replyTo) }, aborted);
}
