import { loadConfig } from "../config/load";
import type { SwitchboardConfig } from "../config/schema";

/** The Worker's validated configuration, as a session object reads it (parsed once per isolate). */
export function sessionConfig(env: Env): SwitchboardConfig {
  const loaded = loadConfig(env);
  // The Worker answers every request 500 with the bad path first, so an object never runs without one.
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.config;
}
