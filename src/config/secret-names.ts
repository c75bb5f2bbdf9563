import type { SwitchboardConfig } from "./schema";

/**
 * Every secret the document names (SPEC §20: `apiKeyEnv`, `secretEnv`, `headers.<h>.env`, and any later
 * `…Env`), sorted and without repeats. A scripted rule's tool arguments are data, not secret names.
 */
export function namedSecrets(config: SwitchboardConfig): string[] {
  const names = new Set<string>();
  const visit = (value: unknown, key: string): void => {
    if (key === "rules") return;
    if (typeof value === "string") {
      if (key === "env" || key.endsWith("Env")) names.add(value);
      return;
    }
    if (Array.isArray(value)) for (const item of value) visit(item, "");
    else if (value && typeof value === "object")
      for (const [name, item] of Object.entries(value)) visit(item, name);
  };
  visit(config, "");
  return [...names].sort();
}

/** The named secrets `isSet` does not find (names only: a value is never read out of here). */
export function missingSecrets(config: SwitchboardConfig, isSet: (name: string) => boolean): string[] {
  return namedSecrets(config).filter((name) => !isSet(name));
}
