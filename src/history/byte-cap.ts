import type { TranscriptMessage } from "../transcript/message";

/** The most bytes the JSON of a `sessions_history` message array may take (80 KiB, SPEC §5.2 step 4). */
export const MAX_HISTORY_BYTES = 81920;

/** Text of the message that stands in for a newest message too large to return at all. */
export const OVERSIZE_PLACEHOLDER_TEXT = "[sessions_history omitted: message too large]";

const encoder = new TextEncoder();
const NON_ASCII = /[\u0080-\uffff]/;

/** UTF-8 byte length of a string. */
export function utf8Bytes(text: string): number {
  // ASCII (most transcripts) is one byte a character: no need to encode a copy just to measure it.
  return NON_ASCII.test(text) ? encoder.encode(text).byteLength : text.length;
}

/** UTF-8 byte length of `JSON.stringify(value)` (0 for values JSON cannot represent, like `undefined`). */
export function jsonBytes(value: unknown): number {
  const json: string | undefined = JSON.stringify(value);
  return json === undefined ? 0 : utf8Bytes(json);
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
 * Keeps the newest items whose JSON array fits in `maxBytes`, counted as `2 + Σ sizeOf(item) + (n − 1)`
 * (brackets and commas). Reads `newestFirst` lazily and stops one item after the last one kept, since the
 * caller's iterable pages through storage. Returns the kept items oldest→newest; `droppedMessages`
 * counts the items read but not kept, so it is > 0 exactly when something older was left out.
 *
 * If even the newest item alone is too large, the result is `oversize(item)` in its place (for a
 * message: `oversizePlaceholder`), with the oversize item counted dropped. Items are messages, or their
 * JSON already serialized (storage keeps each message's size, so none is serialized to be measured).
 */
export function capByBytes<T>(
  newestFirst: Iterable<T>,
  maxBytes: number,
  sizeOf: (item: T) => number,
  oversize: (item: T) => T,
): { items: T[]; droppedMessages: number; bytes: number } {
  const kept: T[] = [];
  let itemBytes = 0;
  let droppedMessages = 0;
  // for…of closes the iterator on break, so a paging source can release what it holds.
  for (const item of newestFirst) {
    const size = sizeOf(item);
    const arrayBytes = 2 + itemBytes + size + kept.length;
    if (arrayBytes > maxBytes) {
      droppedMessages = 1;
      if (kept.length === 0) {
        const placeholder = oversize(item);
        kept.push(placeholder);
        itemBytes = sizeOf(placeholder);
      }
      break;
    }
    kept.push(item);
    itemBytes += size;
  }
  const bytes = 2 + itemBytes + Math.max(kept.length - 1, 0);
  return { items: kept.reverse(), droppedMessages, bytes };
}

/** What stands in for a message too large to return at all: its id, role and time, and a note. */
export function oversizePlaceholder(message: TranscriptMessage): TranscriptMessage {
  return {
    id: message.id,
    role: message.role,
    content: [{ type: "text", text: OVERSIZE_PLACEHOLDER_TEXT }],
    timestamp: message.timestamp,
  };
}
