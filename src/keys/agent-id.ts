/** Valid agent ids (SPEC §1): lower-case, starting with a letter or digit, at most 64 characters. */
export const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Trims and lower-cases an agent id; undefined when the result is not a valid id. */
export function normalizeAgentId(input: string): string | undefined {
  const candidate = input.trim().toLowerCase();
  return AGENT_ID_PATTERN.test(candidate) ? candidate : undefined;
}
