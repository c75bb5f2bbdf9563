import { z } from "zod";
import { fromBase64Url, toBase64Url } from "../auth/hmac";
import type { ListCursor } from "../index-db/list";

const cursorSchema = z.strictObject({ u: z.number().int(), t: z.number().int().min(0) });

/** Opaque keyset cursor: base64url JSON of the last row's (updatedAt, tie-break). */
export function encodeListCursor(cursor: ListCursor): string {
  return toBase64Url(new TextEncoder().encode(JSON.stringify({ u: cursor.updatedAt, t: cursor.tiebreak })));
}

/** The `cursor` param: a string that must decode, or the call is an input error. */
export const listCursorParam = z.string().transform((text, ctx): ListCursor => {
  const bytes = fromBase64Url(text);
  let decoded: unknown;
  try {
    decoded = bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
  } catch {
    decoded = undefined;
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success) {
    ctx.addIssue({
      code: "custom",
      message: "invalid cursor; pass nextCursor from a previous sessions_list",
    });
    return z.NEVER;
  }
  return { updatedAt: parsed.data.u, tiebreak: parsed.data.t };
});
