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
  if (absent) return `${name} required`;
  if (issue.code === "unrecognized_keys") {
    return `unknown field ${issue.keys.map((key) => (name ? `${name}.${key}` : key)).join(", ")}`;
  }
  if (!name || issue.message.startsWith(`${name} `)) return issue.message;
  return `${name}: ${issue.message}`;
}
