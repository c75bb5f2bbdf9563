import type { z } from "zod";

/**
 * Describes the first issue of a failed parse the way SPEC §5.0 asks: `<name> required`, `unknown
 * field <name>`, or `<name>: <problem>`. Parse with `reportInput: true` so a missing field is told apart.
 */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid input";
  const name = issue.path.join(".");
  if (issue.code === "invalid_type" && issue.input === undefined) return `${name} required`;
  if (issue.code === "unrecognized_keys") {
    return `unknown field ${issue.keys.map((key) => (name ? `${name}.${key}` : key)).join(", ")}`;
  }
  return name ? `${name}: ${issue.message}` : issue.message;
}
