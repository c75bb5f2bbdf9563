import type { z } from "zod";
import { badRequest } from "../errors";
import { describeZodError } from "../validation";

/** Parses a REST body with its schema; the first issue becomes a 400 naming the field. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  if (body !== undefined && (typeof body !== "object" || body === null || Array.isArray(body)))
    throw badRequest("body: must be a JSON object");
  const parsed = schema.safeParse(body ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw badRequest(describeZodError(parsed.error));
}
