import type { z } from "zod";
import { configSchema, type SwitchboardConfig } from "./schema";

export type ConfigResult = { ok: true; config: SwitchboardConfig } | { ok: false; error: string };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A path as SPEC §20 writes it: `agents.list[1].runtime.type`, `channels["a.b"].secretEnv`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment)) text += text ? `.${segment}` : segment;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text || "(root)";
}

/** Names the first bad paths of a failed parse, e.g. `agents.list[0].id: agent id must match …`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`)
    .join("; ");
}

/** Validates a configuration document already read; `source` names it in the error. */
export function validateConfig(document: unknown, source: string): ConfigResult {
  const parsed = configSchema.safeParse(document);
  return parsed.success
    ? { ok: true, config: parsed.data }
    : { ok: false, error: `${source} invalid: ${describeIssues(parsed.error)}` };
}

/** Parses a configuration document given as JSON text (blank is the built-in default, `{}`). */
export function parseConfig(raw: string | undefined, source = "SWITCHBOARD_CONFIG"): ConfigResult {
  let document: unknown = {};
  if (raw !== undefined && raw.trim() !== "") {
    try {
      document = JSON.parse(raw);
    } catch (cause) {
      return { ok: false, error: `${source} is not valid JSON: ${(cause as Error).message}` };
    }
  }
  return validateConfig(document, source);
}
