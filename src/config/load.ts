import { bundledConfig } from "./bundled";
import { type ConfigResult, parseConfig, validateConfig } from "./parse";
import { missingSecrets } from "./secret-names";
import { readSecret } from "./secrets";

export { type ConfigResult, parseConfig, validateConfig } from "./parse";

/** Where the document came from and what it lacks, for `/healthz` and the start-up log (SPEC §20). */
export interface LoadedConfig {
  result: ConfigResult;
  /** `SWITCHBOARD_CONFIG`, or the bundled file (`config/local.json`, `config/production.json`). */
  source: string;
  /** Secrets the document names that this Worker's environment does not have: names only. */
  missingSecrets: string[];
}

/** The document this Worker runs with: `SWITCHBOARD_CONFIG` when set, else its bundled file. */
export function readConfig(env: Env): LoadedConfig {
  const raw = env.SWITCHBOARD_CONFIG;
  const fromVar = raw !== undefined && raw.trim() !== "";
  const source = fromVar ? "SWITCHBOARD_CONFIG" : bundledConfig.file;
  const result = fromVar ? parseConfig(raw) : validateConfig(bundledConfig.document, source);
  const missing = result.ok
    ? missingSecrets(result.config, (name) => readSecret(env, name) !== undefined)
    : [];
  return { result, source, missingSecrets: missing };
}

// Parsing once per isolate per document keeps validation off the hot path; the warning is logged once too.
let cached: { raw: string | undefined; loaded: LoadedConfig } | undefined;

/** The configuration of this Worker with its source and missing secrets, read on first use. */
export function loadedConfig(env: Env): LoadedConfig {
  if (cached && cached.raw === env.SWITCHBOARD_CONFIG) return cached.loaded;
  const loaded = readConfig(env);
  cached = { raw: env.SWITCHBOARD_CONFIG, loaded };
  if (loaded.missingSecrets.length > 0)
    console.warn(
      `configuration (${loaded.source}) names secrets this Worker does not have: ${loaded.missingSecrets.join(", ")}`,
    );
  return loaded;
}

/** The validated configuration of this Worker, parsed on first use. */
export function loadConfig(env: Env): ConfigResult {
  return loadedConfig(env).result;
}
