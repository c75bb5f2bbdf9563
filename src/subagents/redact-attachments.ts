import type { TranscriptMessage } from "../transcript/message";
import { ATTACHMENT_REDACTION } from "./attachments";

/** Replaces attachment contents in a sessions_spawn call's arguments; anything else is returned as is. */
function redactArguments(args: unknown): unknown {
  if (
    typeof args !== "object" ||
    args === null ||
    !Array.isArray((args as { attachments?: unknown }).attachments)
  ) {
    return args;
  }
  const { attachments } = args as { attachments: unknown[] };
  return {
    ...args,
    attachments: attachments.map((file) =>
      typeof file === "object" && file !== null ? { ...file, content: ATTACHMENT_REDACTION } : file,
    ),
  };
}

/** Every stored copy of a sessions_spawn tool call keeps its attachments' names, never their contents. */
export function redactSpawnAttachments(messages: readonly TranscriptMessage[]): TranscriptMessage[] {
  return messages.map((message) => {
    if (typeof message.content === "string" || !message.content.some((block) => block.type === "toolCall"))
      return message;
    return {
      ...message,
      content: message.content.map((block) =>
        block.type === "toolCall" && block.name === "sessions_spawn"
          ? { ...block, arguments: redactArguments(block.arguments) }
          : block,
      ),
    };
  });
}
