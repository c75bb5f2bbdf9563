/**
 * A secret named in the configuration (`apiKeyEnv`, `secretEnv`, …): a non-empty string binding of the
 * Worker, else undefined. Names come from the configuration, so the lookup is by string.
 */
export function readSecret(env: Env, name: string): string | undefined {
  const value = (env as unknown as Record<string, unknown>)[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}
