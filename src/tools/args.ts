import { z } from "zod";
import { refineKeyInput } from "../keys";
import { MAX_IDEMPOTENCY_KEY_CHARS, MAX_LABEL_CHARS } from "../limits";

/** A numeric tool param: a JSON number, floored (SPEC §5.0). */
export function flooredNumber() {
  return z.number().transform((value) => Math.floor(value));
}

/** A session reference param (key, `main`, `current` or sessionId): bounded, no control characters. */
export function sessionKeyParam() {
  return z.string().superRefine(refineKeyInput);
}

/** A label param, set or searched: SPEC §11 bounds labels. */
export function labelParam() {
  return z.string().max(MAX_LABEL_CHARS);
}

/** An `idempotencyKey` param. */
export function idempotencyKeyParam() {
  return z.string().max(MAX_IDEMPOTENCY_KEY_CHARS);
}

/** JSON text of an object, parsed; anything else is an issue of the param. */
const jsonObjectText = z.string().transform((text, ctx): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {}
  ctx.addIssue({ code: "custom", message: "must be a JSON object, or its JSON text" });
  return z.NEVER;
});

/**
 * A free-form JSON object param (a JSON Schema). A strict function-calling client cannot declare an
 * object whose keys are not known (every object closed), so its JSON schema offers only the text form
 * (src/tools/specs.ts); the object itself is accepted too, as OpenClaw's clients send it.
 */
export function jsonObjectParam() {
  return z.union([jsonObjectText, z.record(z.string(), z.unknown())], {
    error: "must be a JSON object, or its JSON text",
  });
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Trims strings; an empty string counts as absent (SPEC §5.0). */
function normalizeValue(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/**
 * Prepares raw args for a tool schema: each camelCase param also accepts its snake_case spelling,
 * strings are trimmed and empty strings dropped. Unknown keys pass through for the schema to judge.
 */
export function normalizeArgs(schema: z.ZodObject, raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const input = raw as Record<string, unknown>;
  // No prototype: a `__proto__` key stays a plain (unknown) key instead of feeding inherited values.
  const out: Record<string, unknown> = Object.create(null);
  const aliases = new Map(Object.keys(schema.shape).map((name) => [snakeCase(name), name]));
  for (const [key, value] of Object.entries(input)) {
    const exact = Object.hasOwn(schema.shape, key);
    const name = exact ? key : (aliases.get(key) ?? key);
    const normalized = normalizeValue(value);
    // The camelCase spelling wins over its snake_case alias, whatever their order.
    if (normalized !== undefined && (exact || out[name] === undefined)) out[name] = normalized;
  }
  return out;
}
