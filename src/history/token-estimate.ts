import type { ContentBlock, TranscriptMessage } from "../transcript/message";

/** Characters per token when no tokenizer is at hand (SPEC §20). */
const CHARS_PER_TOKEN = 4;
/** What a message costs beyond its content (its role and the provider's separators), in tokens. */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** A text's tokens, estimated before the call: characters ÷ 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The characters of a block a model reads: its text, its thinking, a tool call's name and arguments. */
function blockChars(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "thinking":
      return block.thinking.length;
    case "toolCall":
      return block.name.length + JSON.stringify(block.arguments ?? {}).length;
    default:
      // An image's data is not text the estimate can weigh; its description is all a prompt carries.
      return 0;
  }
}

/** A message's tokens as a prompt carries it (its content plus a fixed overhead), estimated. */
export function messageTokens(message: Pick<TranscriptMessage, "content">): number {
  const chars =
    typeof message.content === "string"
      ? message.content.length
      : message.content.reduce((sum, block) => sum + blockChars(block), 0);
  return Math.ceil(chars / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}
