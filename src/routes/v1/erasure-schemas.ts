import { z } from "zod";
import { channelIdSchema } from "../../channels/inbound";

// Deletion and erasure (SPEC §23): the query of `DELETE /v1/sessions/{key}` and `POST /v1/erase`.

/** `DELETE /v1/sessions/{key}`'s query. */
export const deleteSessionQuerySchema = z.strictObject({
  erase: z
    .enum(["true", "false"])
    .optional()
    .describe("`true` (operator only): also erase the copies of the session's text elsewhere"),
});

/** What an erasure removed, per store. */
export const erasedCountsSchema = z.object({
  sessions: z.number().int().describe("sessions deleted (not counting their children)"),
  messages: z.number().int().describe("messages in other sessions replaced by `[erased]`"),
  searchRows: z.number().int().describe("search index rows of those messages deleted"),
  children: z.number().int().describe("descendant sessions erased and deleted"),
  sent: z.number().int().describe("`sent` records in other sessions whose text was dropped"),
  notices: z.number().int().describe("watchers of other sessions, and watch notices owed them, removed"),
  quotes: z
    .number()
    .int()
    .describe(
      "messages in other sessions (tool results, replies) whose exact quotes of the text were replaced",
    ),
  summaries: z
    .number()
    .int()
    .describe("other sessions' compaction summaries dropped (built from an erased message) or rewritten"),
  pending: z.number().int().describe("entries other sessions still owed (queued sends, posts) rewritten"),
});

/** `DELETE /v1/sessions/{key}`: `erased` only with `?erase=true`. */
export const sessionDeletedSchema = z.object({
  deleted: z.literal(true),
  erased: erasedCountsSchema.optional(),
});

/** `POST /v1/erase`. */
export const eraseSenderSchema = z.strictObject({
  channel: z.string().trim().min(1).max(100).describe("the channel's name in the configuration"),
  senderId: channelIdSchema.describe("the person's id on that channel, as its inbound messages give it"),
});

/** What `POST /v1/erase` answers. */
export const eraseSenderAnswerSchema = z.object({ erased: erasedCountsSchema });
