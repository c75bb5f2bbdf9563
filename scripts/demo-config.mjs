// The demo configuration (demo-config.json next to this file): three scripted agents main, research and
// ops that may talk to each other (visibility "all", agent-to-agent on for every agent), two reply-back
// turns, a webchat channel; no keys needed. `npm start`, `npm run demo`, the bench and the Node-side
// checks run the local Worker with it; vitest.config.ts hands it to a test as LOCAL_DEFAULT_CONFIG.
// Production never sees it (README "Deploy").
import { readFileSync } from "node:fs";
import path from "node:path";

/** The demo configuration document, a fresh copy each call (callers may change it). */
export function readDemoConfig() {
  return JSON.parse(readFileSync(path.join(import.meta.dirname, "demo-config.json"), "utf8"));
}
