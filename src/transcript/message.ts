import { z } from "zod";
import { MAX_JSON_DEPTH } from "../limits";
import { nestsDeeperThan } from "../validation";

/** Limits from SPEC §11. */
export const MAX_MESSAGE_TEXT_BYTES = 256 * 1024;
export const MAX_TRANSCRIPT_ROW_BYTES = 1024 * 1024;

export const messageRoles = ["user", "assistant", "toolResult", "tool", "system"] as const;
export type MessageRole = (typeof messageRoles)[number];

/** Tool messages are hidden from listings and from history unless `includeTools` is set. */
export const toolRoles: ReadonlySet<MessageRole> = new Set(["toolResult", "tool"]);

const encoder = new TextEncoder();

/** UTF-8 size of a string; a JS string's length counts UTF-16 units, not bytes. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** Each UTF-16 unit encodes to at most 3 UTF-8 bytes, so short strings skip the encoding. */
const withinTextLimit = (value: string) =>
  value.length * 3 <= MAX_MESSAGE_TEXT_BYTES || utf8Bytes(value) <= MAX_MESSAGE_TEXT_BYTES;
const tooLarge = { message: `text larger than ${MAX_MESSAGE_TEXT_BYTES} bytes` };

/** Message text, at most MAX_MESSAGE_TEXT_BYTES. */
export const messageTextSchema = z.string().refine(withinTextLimit, tooLarge);

/**
 * Text someone sends (chat.send, a channel's inbound message): trimmed as everywhere, so a text of only
 * spaces is no message; then within the limit as any message text.
 */
export const sentTextSchema = z.string().trim().min(1).refine(withinTextLimit, tooLarge);

// Blocks and messages are loose objects: an imported transcript keeps every field it came with, so the
// JSONL export gives back exactly what was imported.
export const textBlockSchema = z.looseObject({ type: z.literal("text"), text: messageTextSchema });
export const thinkingBlockSchema = z.looseObject({
  type: z.literal("thinking"),
  thinking: messageTextSchema,
});
export const toolCallBlockSchema = z.looseObject({
  type: z.literal("toolCall"),
  id: z.string().optional(),
  name: z.string(),
  arguments: z.unknown().optional(),
});
export const imageBlockSchema = z.looseObject({
  type: z.literal("image"),
  data: z.string().optional(),
  mimeType: z.string().optional(),
});
export const contentBlockSchema = z.discriminatedUnion("type", [
  textBlockSchema,
  thinkingBlockSchema,
  toolCallBlockSchema,
  imageBlockSchema,
]);

export const provenanceSchema = z.looseObject({
  kind: z.enum(["external_user", "inter_session", "subagent_task", "subagent_completion", "system"]),
  sourceSessionKey: z.string().optional(),
  sourceChannel: z.string().optional(),
  sourceTool: z.string().optional(),
  /** How many sessions_send hops led here (ours): cuts A→B→C→A loops. */
  hop: z.number().int().nonnegative().optional(),
  /** The scheduled job that started this turn (SPEC §22, `sourceTool: "cron"`), and where its answer goes. */
  job: z.object({ id: z.string(), name: z.string(), deliverTo: z.string().optional() }).optional(),
});
export type Provenance = z.infer<typeof provenanceSchema>;

/** What a transcript message must look like (also its JSON Schema: `transcriptMessageSchema` is opaque). */
export const transcriptMessageShape = z.looseObject({
  id: z.string().min(1).max(200),
  role: z.enum(messageRoles),
  content: z.union([messageTextSchema, z.array(contentBlockSchema)]),
  provenance: provenanceSchema.optional(),
  // What our runs add (OpenClaw's fields): the answering model, how its call ended, a tool's failure.
  model: z.string().optional(),
  provider: z.string().optional(),
  stopReason: z.string().optional(),
  isError: z.boolean().optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
  usage: z.unknown().optional(),
  cost: z.unknown().optional(),
  details: z.unknown().optional(),
  timestamp: z.number().int().nonnegative(),
  runId: z.string().optional(),
});

export type ContentBlock = z.infer<typeof contentBlockSchema>;
export type TranscriptMessage = z.infer<typeof transcriptMessageShape>;

/** A tool call's arguments sit three levels down a message (message, content, block). */
export const MAX_TOOL_ARGUMENTS_DEPTH = MAX_JSON_DEPTH - 3;

/**
 * Validates a message against `transcriptMessageShape` but keeps the value exactly as sent: zod rebuilds
 * objects with the shape's keys first, and the JSONL export must give each message back byte for byte,
 * key order included. The shape has no transforms, so nothing else differs.
 */
export const transcriptMessageSchema = z.unknown().transform((input, ctx): TranscriptMessage => {
  // Checked first: the shape's own checks and the session's RPC both recurse into the value.
  if (nestsDeeperThan(input, MAX_JSON_DEPTH)) {
    ctx.addIssue({ code: "custom", input, message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
    return z.NEVER;
  }
  const parsed = transcriptMessageShape.safeParse(input, { reportInput: true });
  if (parsed.success) return input as TranscriptMessage;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
  return z.NEVER;
});

/** The plain text of a message: its string content, or its text blocks joined by newlines. */
export function messageText(message: Pick<TranscriptMessage, "content">): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}
