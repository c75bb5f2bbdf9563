import local from "../../config/local.json";
import production from "../../config/production.json";

/**
 * Which file of config/ this build carries: wrangler.toml's `define` sets it per environment (`local` at
 * the top level, `production` under [env.production]). esbuild folds the comparison below, so a bundle
 * holds only its own environment's document (CI greps the production bundle for the local agents).
 * Adding an environment: its `define`, its file, and one line here.
 */
declare const SWITCHBOARD_CONFIG_FILE: "local" | "production";

/** The configuration document bundled into this Worker (SPEC §20), and the file it came from. */
export const bundledConfig: { file: string; document: unknown } =
  SWITCHBOARD_CONFIG_FILE === "production"
    ? { file: "config/production.json", document: production }
    : { file: "config/local.json", document: local };
