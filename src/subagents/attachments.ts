import { z } from "zod";
import { toHex } from "../auth/hmac";
import { MAX_MIME_TYPE_CHARS } from "../limits";

/** SPEC §5.4: at most 50 attachments per spawn, whatever the configuration says. */
export const MAX_ATTACHMENTS = 50;
/** What replaces attachment contents in every stored copy of a sessions_spawn call. */
export const ATTACHMENT_REDACTION = "[attachment content redacted]";

export const attachmentSchema = z.object({
  name: z.string(),
  content: z.string(),
  encoding: z.enum(["utf8", "base64"]).optional(),
  mimeType: z.string().max(MAX_MIME_TYPE_CHARS).optional(),
});
export type AttachmentInput = z.infer<typeof attachmentSchema>;

export interface AttachmentLimits {
  enabled: boolean;
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export interface PreparedAttachment {
  name: string;
  mimeType?: string;
  encoding: "utf8" | "base64";
  bytes: Uint8Array;
  sha256: string;
}

export type AttachmentCheck =
  | { ok: true; files: PreparedAttachment[]; totalBytes: number }
  | { ok: false; error: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Control characters (C0, DEL, C1) and path separators make a name unsafe to mount as a file. */
function hasUnsafeCharacter(name: string): boolean {
  for (const char of name) {
    const code = char.codePointAt(0) ?? 0;
    if (char === "/" || char === "\\" || code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** A file name that is safe to mount: no separators, NUL or control characters, not `.` or `..`. */
export function isSafeAttachmentName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== "." && name !== ".." && !hasUnsafeCharacter(name);
}

/** Decoded size of strict base64, known before decoding anything. */
function base64Size(content: string): number | undefined {
  if (content.length % 4 !== 0 || !BASE64.test(content)) return undefined;
  const padding = content.endsWith("==") ? 2 : content.endsWith("=") ? 1 : 0;
  return (content.length / 4) * 3 - padding;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return toHex(digest);
}

/** Validates and decodes attachments against the limits (SPEC §5.4); the first problem is the error. */
export async function prepareAttachments(
  inputs: AttachmentInput[],
  limits: AttachmentLimits,
): Promise<AttachmentCheck> {
  if (inputs.length === 0) return { ok: true, files: [], totalBytes: 0 };
  if (!limits.enabled) {
    return {
      ok: false,
      error: "attachments are disabled; set tools.sessions_spawn.attachments.enabled=true",
    };
  }
  const maxFiles = Math.min(limits.maxFiles, MAX_ATTACHMENTS);
  if (inputs.length > maxFiles)
    return { ok: false, error: `too many attachments: ${inputs.length} > ${maxFiles}` };
  const seen = new Set<string>();
  const files: PreparedAttachment[] = [];
  let totalBytes = 0;
  for (const [index, input] of inputs.entries()) {
    if (!isSafeAttachmentName(input.name))
      return { ok: false, error: `attachments[${index}].name is not a safe file name` };
    if (seen.has(input.name)) return { ok: false, error: `duplicate attachment name "${input.name}"` };
    seen.add(input.name);
    const encoding = input.encoding ?? "utf8";
    const size =
      encoding === "base64" ? base64Size(input.content) : new TextEncoder().encode(input.content).byteLength;
    if (size === undefined) return { ok: false, error: `attachments[${index}].content is not valid base64` };
    if (size > limits.maxFileBytes) {
      return {
        ok: false,
        error: `attachment "${input.name}" is ${size} bytes, over the ${limits.maxFileBytes}-byte limit`,
      };
    }
    totalBytes += size;
    if (totalBytes > limits.maxTotalBytes) {
      return { ok: false, error: `attachments total over the ${limits.maxTotalBytes}-byte limit` };
    }
    const bytes =
      encoding === "base64"
        ? Uint8Array.from(atob(input.content), (char) => char.charCodeAt(0))
        : new TextEncoder().encode(input.content);
    files.push({
      name: input.name,
      encoding,
      bytes,
      sha256: await sha256Hex(bytes),
      ...(input.mimeType ? { mimeType: input.mimeType } : {}),
    });
  }
  return { ok: true, files, totalBytes };
}
