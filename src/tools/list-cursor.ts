import { z } from "zod";
import { fromBase64Url, toBase64Url } from "../auth/hmac";
import type { ListCursor } from "../index-db/list";

// `s`: the shard of the page's last row, when the page merged several (src/index-db/list.ts).
const cursorSchema = z.strictObject({
  u: z.number().int(),
  t: z.number().int().min(0),
  s: z.number().int().min(0).optional(),
});

/** Opaque keyset cursor: base64url JSON of the last row's (updatedAt, tie-break[, shard]). */
export function encodeListCursor(cursor: ListCursor): string {
  const shard = cursor.shard !== undefined ? { s: cursor.shard } : {};
  return encodeJsonCursor({ u: cursor.updatedAt, t: cursor.tiebreak, ...shard });
}

/**
 * A `cursor` param: base64url JSON that must match `shape`, or the call is an input error saying where a
 * valid one comes from (`hint`).
 */
export function jsonCursorParam<T>(shape: z.ZodType<T>, hint: string) {
  return z.string().transform((text, ctx): T => {
    const parsed = shape.safeParse(decodeJsonCursor(text));
    if (!parsed.success) {
      ctx.addIssue({ code: "custom", message: `invalid cursor; ${hint}` });
      return z.NEVER;
    }
    return parsed.data;
  });
}

/** What a base64url JSON cursor holds; undefined when it is not one. */
export function decodeJsonCursor(text: string): unknown {
  const bytes = fromBase64Url(text);
  try {
    return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
  } catch {
    return undefined;
  }
}

/** The cursor as base64url JSON (what `jsonCursorParam` reads back). */
export const encodeJsonCursor = (value: unknown): string =>
  toBase64Url(new TextEncoder().encode(JSON.stringify(value)));

/** The `cursor` param of sessions_list. */
export const listCursorParam = jsonCursorParam(
  cursorSchema,
  "pass nextCursor from a previous sessions_list",
).transform(
  (cursor): ListCursor => ({
    updatedAt: cursor.u,
    tiebreak: cursor.t,
    ...(cursor.s !== undefined ? { shard: cursor.s } : {}),
  }),
);
