import type { KeyOptions } from "../../src/keys";

/** The configuration defaults: mainKey `main`, per-sender scope. */
export const defaults: KeyOptions = { mainKey: "main", scope: "per-sender" };

/** A custom mainKey, to tell the literal `main` apart from the configured key. */
export const customMain: KeyOptions = { mainKey: "home", scope: "per-sender" };

/** Global scope: the main session and all direct chats share `agent:<id>:global`. */
export const globalScope: KeyOptions = { mainKey: "main", scope: "global" };

/** A sessionId-shaped value for hook and sub-agent keys. */
export const SAMPLE_UUID = "5f0c2a9e-8b1d-4c3e-9f7a-1234567890ab";
