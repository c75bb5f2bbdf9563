import type { z } from "zod";
import { configSchema, type SwitchboardConfig } from "./schema";

export type ConfigResult = { ok: true; config: SwitchboardConfig } | { ok: false; error: string };

/** Names the first bad path of a failed parse, e.g. `agents.list.0.id: agent id must match …`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/** Parses the configuration document (a JSON string). */
export function parseConfig(raw: string | undefined): ConfigResult {
  let document: unknown = {};
  if (raw !== undefined && raw.trim() !== "") {
    try {
      document = JSON.parse(raw);
    } catch (cause) {
      return { ok: false, error: `SWITCHBOARD_CONFIG is not valid JSON: ${(cause as Error).message}` };
    }
  }
  const parsed = configSchema.safeParse(document);
  return parsed.success
    ? { ok: true, config: parsed.data }
    : { ok: false, error: `SWITCHBOARD_CONFIG invalid: ${describeIssues(parsed.error)}` };
}

// Parsing once per isolate per document keeps validation off the hot path.
let cached: { raw: string | undefined; result: ConfigResult } | undefined;

/** The validated configuration of this Worker, parsed on first use. */
export function loadConfig(env: Pick<Env, "SWITCHBOARD_CONFIG">): ConfigResult {
  if (cached && cached.raw === env.SWITCHBOARD_CONFIG) return cached.result;
  cached = { raw: env.SWITCHBOARD_CONFIG, result: parseConfig(env.SWITCHBOARD_CONFIG) };
  return cached.result;
}
