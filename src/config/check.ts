import { parseConfig } from "./parse";
import { missingSecrets } from "./secret-names";

/** What `npm run config:check` reports of one file: its first bad paths, or the secrets it lacks. */
export interface ConfigCheck {
  file: string;
  /** `<file> invalid: agents.list[1].runtime.type: …`, as the Worker would answer it. */
  error?: string;
  /** Secrets the document names that `isSet` does not find, by name. */
  missingSecrets: string[];
}

/**
 * Checks one configuration file with the Worker's own schema and loader (scripts/config-check.mjs bundles
 * this module, so the check and the Worker cannot disagree). `isSet` answers by name only.
 */
export function checkConfigText(text: string, file: string, isSet: (name: string) => boolean): ConfigCheck {
  if (text.trim() === "") return { file, error: `${file} is empty`, missingSecrets: [] };
  const result = parseConfig(text, file);
  if (!result.ok) return { file, error: result.error, missingSecrets: [] };
  return { file, missingSecrets: missingSecrets(result.config, isSet) };
}
