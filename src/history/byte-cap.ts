import type { TranscriptMessage } from "../transcript/message";

/** The most bytes the JSON of a `sessions_history` message array may take (80 KiB, SPEC §5.2 step 4). */
export const MAX_HISTORY_BYTES = 81920;

/** Text of the message that stands in for a newest message too large to return at all. */
export const OVERSIZE_PLACEHOLDER_TEXT = "[sessions_history omitted: message too large]";

const encoder = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;

/** UTF-8 byte length of `JSON.stringify(value)` (0 for values JSON cannot represent, like `undefined`). */
export function jsonBytes(value: unknown): number {
  const json: string | undefined = JSON.stringify(value);
  if (json === undefined) return 0;
  // ASCII (most transcripts) is one byte a character: no need to encode a copy just to measure it.
  return NON_ASCII.test(json) ? encoder.encode(json).byteLength : json.length;
}

/**
 * How many of `items`, from the first, fit in a JSON array of at most `maxBytes` (counted as
 * `2 + Σ bytes + (n − 1)`, brackets and commas): a tool answer's list cut to its byte cap.
 */
export function fittingCount(items: readonly unknown[], maxBytes: number): number {
  let bytes = 2;
  for (const [index, item] of items.entries()) {
    bytes += jsonBytes(item) + (index > 0 ? 1 : 0);
    if (bytes > maxBytes) return index;
  }
  return items.length;
}

/**
 * Keeps the newest messages whose JSON array fits in `maxBytes`, counted as `2 + Σ bytes + (n − 1)`
 * (brackets and commas). Reads `newestFirst` lazily and stops one item after the last one kept, since the
 * caller's iterable pages through storage. Returns the kept messages oldest→newest; `droppedMessages`
 * counts the items read but not kept, so it is > 0 exactly when something older was left out.
 *
 * If even the newest message alone is too large, the result is one placeholder in its place:
 * `{ id, role, timestamp }` of that message and
 * `content: [{ type: "text", text: OVERSIZE_PLACEHOLDER_TEXT }]`, with the oversize message counted dropped.
 * `sizeOf` is `jsonBytes` unless the caller already knows each message's size (storage does).
 */
export function capByBytes(
  newestFirst: Iterable<TranscriptMessage>,
  maxBytes = MAX_HISTORY_BYTES,
  sizeOf: (message: TranscriptMessage) => number = jsonBytes,
): { messages: TranscriptMessage[]; droppedMessages: number; bytes: number } {
  const kept: TranscriptMessage[] = [];
  let messageBytes = 0;
  let droppedMessages = 0;
  // for…of closes the iterator on break, so a paging source can release what it holds.
  for (const message of newestFirst) {
    const size = sizeOf(message);
    const arrayBytes = 2 + messageBytes + size + kept.length;
    if (arrayBytes > maxBytes) {
      droppedMessages = 1;
      if (kept.length === 0) {
        const placeholder = oversizePlaceholder(message);
        kept.push(placeholder);
        messageBytes = jsonBytes(placeholder);
      }
      break;
    }
    kept.push(message);
    messageBytes += size;
  }
  const bytes = 2 + messageBytes + Math.max(kept.length - 1, 0);
  return { messages: kept.reverse(), droppedMessages, bytes };
}

function oversizePlaceholder(message: TranscriptMessage): TranscriptMessage {
  return {
    id: message.id,
    role: message.role,
    content: [{ type: "text", text: OVERSIZE_PLACEHOLDER_TEXT }],
    timestamp: message.timestamp,
  };
}
