import type { KeyOptions } from "../keys";
import type { SwitchboardConfig } from "./schema";

/** The key settings of a configuration: what every key parse and display needs. */
export function keyOptionsOf(config: SwitchboardConfig): KeyOptions {
  return { mainKey: config.session.mainKey, scope: config.session.scope };
}
