import type { z } from "zod";

/**
 * Describes the first issue of a failed parse the way SPEC §5.0 asks: `<name> required`, `unknown
 * field <name>`, or `<name>: <problem>`. Parse with `reportInput: true` so a missing field is told apart.
 */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid input";
  const name = issue.path.join(".");
  const absent =
    (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union") &&
    issue.input === undefined;
  // A message of the schema's own that names the field (OpenClaw's wording) wins over the generic one.
  if (name && issue.message.startsWith(`${name} `)) return issue.message;
  if (absent) return `${name} required`;
  if (issue.code === "unrecognized_keys") {
    return `unknown field ${issue.keys.map((key) => (name ? `${name}.${key}` : key)).join(", ")}`;
  }
  if (!name || issue.message.startsWith(`${name} `)) return issue.message;
  return `${name}: ${issue.message}`;
}

/** Control characters (C0, DEL, C1): never part of a key, a search or a name. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** True when text holds a control character (NUL, newline, escape…). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/**
 * True when a JSON value nests objects and arrays more than `max` levels deep (an object or array is
 * level 1). Walks with a stack of its own, so asking about any depth is safe.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, level] = next;
    if (typeof node !== "object" || node === null) continue;
    if (level > max) return true;
    for (const child of Object.values(node)) pending.push([child, level + 1]);
  }
  return false;
}
