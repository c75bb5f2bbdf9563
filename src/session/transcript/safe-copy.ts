import { utf8Bytes } from "../../history/byte-cap";
import { SANITIZE_RULES, type SanitizedMessage, sanitizeMessage } from "../../history/sanitize-message";
import type { TranscriptMessage } from "../../transcript/message";

// Each message's safe copy (migration 0019: safe_body, safe_flags, safe_rules): the message as
// sessions_history returns it, made once when it is stored rather than on every read.

const TRUNCATED = 1;
const REDACTED = 2;

/**
 * The columns of a new message row: its safe copy (null when the body is already safe as it is), what
 * making it safe did, and the rules it was made under. `body` is the message's stored JSON.
 */
export function safeCopy(
  message: TranscriptMessage,
  body: string,
): { safeBody: string | null; flags: number; rules: number } {
  const safe = sanitizeMessage(message);
  const safeBody = JSON.stringify(safe.message);
  return { safeBody: safeBody === body ? null : safeBody, flags: flagBits(safe), rules: SANITIZE_RULES };
}

/**
 * A row's safe copy when it was made under today's rules (`safe`, with its UTF-8 length), else the stored
 * body (`raw`) to make it from.
 */
export const SAFE_COPY_COLUMNS = `CASE WHEN safe_rules = ${SANITIZE_RULES} THEN COALESCE(safe_body, body) END AS safe,
  CASE WHEN safe_rules = ${SANITIZE_RULES} THEN NULL ELSE body END AS raw,
  length(CAST(COALESCE(safe_body, body) AS BLOB)) AS bytes, safe_flags`;

export type SafeCopyRow = {
  safe: string | null;
  raw: string | null;
  bytes: number;
  safe_flags: number | null;
};

/** A message made safe, as the JSON a page returns, with its UTF-8 length and what making it safe did. */
export interface SafeJson {
  json: string;
  bytes: number;
  contentTruncated: boolean;
  contentRedacted: boolean;
}

/**
 * The safe JSON of a row read with SAFE_COPY_COLUMNS: its stored copy as it is (never parsed), or, for a
 * row with no copy under today's rules, the message made safe now.
 */
export function safeJsonOf(row: SafeCopyRow): SafeJson {
  // raw is the body exactly when safe is NULL (SAFE_COPY_COLUMNS).
  if (row.safe === null) {
    const safe = sanitizeMessage(JSON.parse(row.raw as string) as TranscriptMessage);
    const json = JSON.stringify(safe.message);
    return { json, bytes: utf8Bytes(json), ...flagsOf(flagBits(safe)) };
  }
  return { json: row.safe, bytes: row.bytes, ...flagsOf(row.safe_flags ?? 0) };
}

function flagsOf(flags: number): Pick<SafeJson, "contentTruncated" | "contentRedacted"> {
  return { contentTruncated: (flags & TRUNCATED) !== 0, contentRedacted: (flags & REDACTED) !== 0 };
}

function flagBits(safe: SanitizedMessage): number {
  return (safe.contentTruncated ? TRUNCATED : 0) | (safe.contentRedacted ? REDACTED : 0);
}
