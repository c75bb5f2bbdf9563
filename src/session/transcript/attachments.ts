import type { AttachmentRef } from "../../runtimes/types";
import type { PreparedAttachment } from "../../subagents/attachments";
import type { Result } from "../api";

/** UTF-8 attachments up to this size are handed to the runtime inline. */
const INLINE_ATTACHMENT_BYTES = 16 * 1024;

/** Stores the files given to sessions_spawn with the child (table `attachment`). */
export function insertAttachments(sql: SqlStorage, files: readonly PreparedAttachment[]): void {
  for (const file of files) {
    sql.exec(
      "INSERT INTO attachment (name, mime_type, encoding, bytes, size, sha256) VALUES (?, ?, ?, ?, ?, ?)",
      file.name,
      file.mimeType ?? null,
      file.encoding,
      file.bytes,
      file.bytes.byteLength,
      file.sha256,
    );
  }
}

/** One stored file, by name. */
export function readAttachment(
  sql: SqlStorage,
  name: string,
): Result<{ bytes: ArrayBuffer; mimeType?: string }> {
  const row = sql
    .exec<{ bytes: ArrayBuffer; mime_type: string | null }>(
      "SELECT bytes, mime_type FROM attachment WHERE name = ?",
      name,
    )
    .toArray()[0];
  if (!row) return { ok: false, code: "not_found", message: `no attachment named "${name}"` };
  return { ok: true, value: { bytes: row.bytes, ...(row.mime_type ? { mimeType: row.mime_type } : {}) } };
}

/** The session's attachments as runtimes see them. */
export function attachmentRefs(sql: SqlStorage, sessionKey: string): AttachmentRef[] {
  return sql
    .exec<{
      name: string;
      mime_type: string | null;
      encoding: string;
      bytes: ArrayBuffer;
      size: number;
      sha256: string;
    }>("SELECT name, mime_type, encoding, bytes, size, sha256 FROM attachment ORDER BY name")
    .toArray()
    .map((row) => ({
      name: row.name,
      ...(row.mime_type ? { mimeType: row.mime_type } : {}),
      size: row.size,
      sha256: row.sha256,
      path: `/v1/sessions/${encodeURIComponent(sessionKey)}/attachments/${encodeURIComponent(row.name)}`,
      ...(row.encoding === "utf8" && row.size <= INLINE_ATTACHMENT_BYTES
        ? { text: new TextDecoder().decode(row.bytes) }
        : {}),
    }));
}

/** Empties the table (a new session replacing a deleted one's leftovers). */
export function clearAttachments(sql: SqlStorage): void {
  sql.exec("DELETE FROM attachment");
}
