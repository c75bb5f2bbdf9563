// The demo configuration (config/demo.json): three scripted agents main, research and ops that may talk
// to each other (visibility "all", agent-to-agent on for every agent), two reply-back turns, a webchat
// channel; no keys needed. `npm run demo`, the bench and the Node-side checks pass it as SWITCHBOARD_CONFIG
// (so editing config/local.json, what `npm start` serves, never breaks them). Production never sees it.
import { readFileSync } from "node:fs";
import path from "node:path";

/** The demo configuration document, a fresh copy each call (callers may change it). */
export function readDemoConfig() {
  return JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "config", "demo.json"), "utf8"));
}
