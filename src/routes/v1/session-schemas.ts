import { z } from "zod";
import { refineKeyInput } from "../../keys";
import {
  MAX_ADDRESS_CHARS,
  MAX_CHANNEL_ID_CHARS,
  MAX_CHANNEL_NAME_CHARS,
  MAX_IDEMPOTENCY_KEY_CHARS,
  MAX_LABEL_CHARS,
  MAX_MODEL_CHARS,
} from "../../limits";
import {
  MAX_TRANSCRIPT_ROW_BYTES,
  sentTextSchema,
  transcriptMessageSchema,
  utf8Bytes,
} from "../../transcript/message";

const shortText = z.string().trim().min(1).max(MAX_LABEL_CHARS);
const channelId = z.string().trim().min(1).max(MAX_CHANNEL_ID_CHARS);
const channelName = z
  .string()
  .trim()
  .toLowerCase()
  .max(MAX_CHANNEL_NAME_CHARS)
  .regex(/^[a-z0-9][a-z0-9_.-]*$/, "channel must be a lower-case name like discord");

export const deliveryContextSchema = z.strictObject({
  channel: z.string().trim().toLowerCase().min(1).max(MAX_CHANNEL_NAME_CHARS),
  to: z.string().trim().min(1).max(MAX_ADDRESS_CHARS),
  accountId: channelId.optional(),
  threadId: z.union([channelId, z.number()]).optional(),
});

export const createSessionSchema = z.strictObject({
  agentId: z.string().trim().min(1).optional(),
  key: z.string().trim().min(1).superRefine(refineKeyInput).optional(),
  label: shortText.optional(),
  displayName: shortText.optional(),
  subject: shortText.optional(),
  channel: channelName.optional(),
  chatType: z.enum(["direct", "group", "channel"]).optional(),
  deliveryContext: deliveryContextSchema.optional(),
});

export const patchSessionSchema = z.strictObject({
  label: shortText.nullable().optional(),
  displayName: shortText.nullable().optional(),
  sendPolicy: z.enum(["allow", "deny"]).nullable().optional(),
  model: z.string().trim().min(1).max(MAX_MODEL_CHARS).nullable().optional(),
  thinkingLevel: z.string().trim().min(1).max(32).nullable().optional(),
  /** Archive (true) or list again (false), as the `sessions` tool's patch does (SPEC §17). */
  archived: z.boolean().optional(),
  /** Apply only if the key still names this session (its sessionId); else 409, nothing changed. */
  expectedSessionId: z.string().trim().min(1).max(200).optional(),
});

export const importTranscriptSchema = z.strictObject({
  messages: z
    .array(
      transcriptMessageSchema.refine(
        (message) => utf8Bytes(JSON.stringify(message)) <= MAX_TRANSCRIPT_ROW_BYTES,
        {
          message: `message larger than ${MAX_TRANSCRIPT_ROW_BYTES} bytes`,
        },
      ),
    )
    .min(1, "messages must not be empty"),
});

/** `POST /v1/sessions/{key}/messages` (chat.send). */
export const chatSendSchema = z.strictObject({
  text: sentTextSchema,
  idempotencyKey: z.string().trim().min(1).max(MAX_IDEMPOTENCY_KEY_CHARS).optional(),
  /** Answer with the run's event stream instead of 202 (SPEC §14). */
  stream: z.boolean().optional(),
  /** POST the run's outcome here, signed, when it ends (SPEC §22); its origin must be in webhooks.allowedOrigins. */
  webhook: z.string().max(2048).optional(),
});

/** chat.send's 202: the run it queued (the route answers this type). */
export const chatAcceptedSchema = z.object({
  runId: z.string().describe("wait for it with `POST /v1/runs/{runId}/wait`"),
  status: z.literal("accepted"),
});

/** `POST /v1/sessions/{key}/transcript`: what the import did. */
export const importReceiptSchema = z.object({
  imported: z.number().int().describe("messages appended"),
  skipped: z.number().int().describe("messages whose id was already in the transcript"),
  totalMessages: z.number().int(),
});

/** `POST /v1/sessions/{key}/compact`: an empty object (SPEC §20); any field is bad input. */
export const compactSessionSchema = z.strictObject({});

/** What `POST /v1/sessions/{key}/compact` answers (the session object's CompactionAnswer). */
export const compactionAnswerSchema = z.object({
  compacted: z.boolean(),
  reason: z
    .string()
    .optional()
    .describe("why nothing was compacted: nothing older than the newest turn, or the model failed"),
  operationId: z.string().optional().describe("the compaction's id, as its `compacted` event carries it"),
  summarizedMessages: z.number().int().optional().describe("messages the new summary covers now"),
  keptMessages: z.number().int().optional().describe("the newest messages kept verbatim"),
  compactionCount: z.number().int().describe("the session's compactions so far"),
});
