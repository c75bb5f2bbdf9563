/**
 * The shape of an answer, for golden tests: what a client written for OpenClaw depends on (HTTP status,
 * envelope, field names and JSON types), without the values that change from run to run (ids, times).
 */
import type { HttpResult } from "./http";

/** A JSON value's shape: its type name; an object's keys with theirs; an array's first element's. */
export type Shape = string | Shape[] | { [key: string]: Shape };

/**
 * `"string" | "number" | "boolean" | "null"` for scalars, `{ key: shape }` (keys sorted) for objects,
 * `[shape of the first element]` for a non-empty array and `"array"` for an empty one.
 */
export function shapeOf(value: unknown): Shape {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "array" : [shapeOf(value[0])];
  if (typeof value === "object") {
    const shape: Record<string, Shape> = {};
    for (const key of Object.keys(value).sort())
      shape[key] = shapeOf((value as Record<string, unknown>)[key]);
    return shape;
  }
  return typeof value;
}

/**
 * What `content[0].text` holds, relative to `details`: `"compact-json"` (exactly `JSON.stringify(details)`),
 * `"json"` (the same value, other spacing), `"statusText"` (the status card, `details.statusText`), or
 * `"other"`.
 */
function textKind(text: unknown, details: unknown): string {
  if (typeof text !== "string") return shapeOf(text) as string;
  if (text === JSON.stringify(details)) return "compact-json";
  try {
    if (JSON.stringify(JSON.parse(text)) === JSON.stringify(details)) return "json";
  } catch {
    // Not JSON: one of the kinds below.
  }
  if (
    typeof details === "object" &&
    details !== null &&
    text === (details as { statusText?: unknown }).statusText
  )
    return "statusText";
  return "other";
}

/** The shape of a `/tools/invoke` answer: status, envelope, and the shape of `details`. */
export interface InvokeShape {
  status: number;
  envelope: Record<string, unknown>;
  details?: Shape;
}

/**
 * Reads a `/tools/invoke` answer as its shape. A result (`ok: true`) gives the envelope's keys, the type
 * and count of its content blocks, what the first block's text holds (textKind) and the shape of
 * `details`; an error (`ok: false`) gives `error.type` (a value: it is the class of failure) and the
 * shape of `error`.
 */
export function invokeShape(answer: HttpResult<unknown>): InvokeShape {
  const body = answer.json as Record<string, unknown> | undefined;
  if (body === undefined || typeof body !== "object" || body === null)
    return { status: answer.status, envelope: { body: shapeOf(answer.json ?? answer.text) } };
  if (body.ok === false) {
    const error = body.error as Record<string, unknown> | undefined;
    return {
      status: answer.status,
      envelope: { keys: Object.keys(body).sort(), ok: false, errorType: error?.type, error: shapeOf(error) },
    };
  }
  const result = (body.result ?? {}) as Record<string, unknown>;
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  return {
    status: answer.status,
    envelope: {
      keys: Object.keys(body).sort(),
      ok: body.ok,
      resultKeys: Object.keys(result).sort(),
      contentBlocks: content.length,
      contentType: content[0]?.type,
      text: textKind(content[0]?.text, result.details),
    },
    details: shapeOf(result.details),
  };
}

/** The value at a dotted path (`delivery.status`, `runs.0.status`), or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
