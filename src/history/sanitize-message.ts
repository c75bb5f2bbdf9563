import type { ContentBlock, TranscriptMessage } from "../transcript/message";
import { cleanAssistantText } from "./clean-assistant-text";
import { redactJsonLeaf, redactSecrets } from "./redact";
import { truncateText } from "./truncate";

/**
 * What `sanitizeMessage` returns: a fresh message, whether any of its content was cut (a text past the
 * limit, an image's data) and whether anything was masked.
 */
export interface SanitizedMessage {
  message: TranscriptMessage;
  contentTruncated: boolean;
  contentRedacted: boolean;
}

// Mutable flags threaded through one message's blocks.
interface Outcome {
  truncated: boolean;
  redacted: boolean;
}

/**
 * The version of the rules below. Transcripts keep each message's safe copy made under a version; a copy
 * made under another one is made again when read, so bump this whenever what `sanitizeMessage` returns
 * for a message changes.
 */
export const SANITIZE_RULES = 2;

/**
 * Makes one transcript message safe to return from `sessions_history` (SPEC §5.2 steps 1–3): cleans
 * assistant text, redacts credentials everywhere, truncates long texts, and drops usage, cost, details,
 * thinking signatures and image data. Only a cut of content counts as truncated (issue 35): a text cut
 * at the limit, an image without its data. Dropping accounting fields and signatures loses no content
 * the caller could read, so a page of whole texts says `truncated: false`. Never mutates its input.
 */
export function sanitizeMessage(message: TranscriptMessage): SanitizedMessage {
  const outcome: Outcome = { truncated: false, redacted: false };
  const cleanText = message.role === "assistant" ? cleanAssistantText : (text: string) => text;
  const safeText = (text: string): string => limitText(redactText(cleanText(text), outcome), outcome);
  const { usage: _usage, cost: _cost, details: _details, ...kept } = message;
  const content =
    typeof message.content === "string"
      ? safeText(message.content)
      : message.content.map((block) => sanitizeBlock(block, safeText, outcome));
  return {
    message: { ...kept, content },
    contentTruncated: outcome.truncated,
    contentRedacted: outcome.redacted,
  };
}

function sanitizeBlock(
  block: ContentBlock,
  safeText: (text: string) => string,
  outcome: Outcome,
): ContentBlock {
  switch (block.type) {
    case "text":
      return { ...block, text: safeText(block.text) };
    case "thinking": {
      const { signature: _signature, thinkingSignature: _thinkingSignature, ...rest } = block;
      return { ...rest, thinking: limitText(redactText(block.thinking, outcome), outcome) };
    }
    case "toolCall":
      if (block.arguments === undefined) return { ...block };
      return { ...block, arguments: sanitizeJson(block.arguments, undefined, outcome) };
    case "image": {
      const { data, ...rest } = block;
      if (data === undefined) return { ...block };
      outcome.truncated = true;
      return { ...rest, omitted: true, bytes: base64DecodedLength(data) };
    }
  }
}

// Tool-call arguments are redacted leaf by leaf, so the result is still the same JSON shape; a leaf
// under a credential-named key is masked whole, as the JSON-field rule would in the serialized form.
function sanitizeJson(value: unknown, key: string | undefined, outcome: Outcome): unknown {
  if (typeof value === "string") {
    const redacted = redactJsonLeaf(key, value);
    if (redacted.redacted) outcome.redacted = true;
    return limitText(redacted.text, outcome);
  }
  if (Array.isArray(value)) return value.map((item: unknown) => sanitizeJson(item, key, outcome));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, sanitizeJson(item, name, outcome)]),
    );
  }
  return value;
}

function redactText(text: string, outcome: Outcome): string {
  const result = redactSecrets(text);
  if (result.redacted) outcome.redacted = true;
  return result.text;
}

function limitText(text: string, outcome: Outcome): string {
  const result = truncateText(text);
  if (result.truncated) outcome.truncated = true;
  return result.text;
}

/** Bytes the base64 `data` (optionally a `data:` URL) decodes to, without decoding it. */
export function base64DecodedLength(data: string): number {
  const payload = data.startsWith("data:") ? data.slice(data.indexOf(",") + 1) : data;
  const digits = payload.replace(/[^A-Za-z0-9+/=_-]/g, "");
  const padding = digits.endsWith("==") ? 2 : digits.endsWith("=") ? 1 : 0;
  return Math.floor((digits.length * 3) / 4) - padding;
}
