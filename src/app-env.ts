import type { Identity } from "./auth/identity";
import type { SwitchboardConfig } from "./config/schema";

/** Hono's environment for every route: the Worker bindings and what middleware has established. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    config: SwitchboardConfig;
    identity: Identity;
  };
}
