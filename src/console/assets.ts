import style from "./assets/console.css";
import script from "./assets/console.js";
import liveScript from "./assets/console-live.js";

export interface ConsoleAsset {
  text: string;
  type: string;
}

const JAVASCRIPT = "text/javascript; charset=utf-8";

/** The console's files, served by the Worker itself (no CDN, no build step: wrangler.toml `[[rules]]`). */
const ASSETS = new Map<string, ConsoleAsset>([
  ["console.js", { text: script, type: JAVASCRIPT }],
  // Imported by console.js as "./console-live.js": no version in its URL, so browsers revalidate it.
  ["console-live.js", { text: liveScript, type: JAVASCRIPT }],
  ["console.css", { text: style, type: "text/css; charset=utf-8" }],
]);

/** A console file by name; undefined for any other name. */
export const consoleAsset = (name: string): ConsoleAsset | undefined => ASSETS.get(name);

/** A short digest of an asset's text: its version, in the URL the shell asks for. */
async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes).slice(0, 6)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

let versions: Promise<Map<string, string>> | undefined;

/** Each asset's version, computed once per isolate. */
export function assetVersions(): Promise<Map<string, string>> {
  versions ??= Promise.all(
    [...ASSETS].map(async ([name, asset]) => [name, await digest(asset.text)] as const),
  ).then((entries) => new Map(entries));
  return versions;
}

/** The shell's links: each asset's URL with its version, so a browser may cache that version for good. */
export async function assetUrls(): Promise<Record<string, string>> {
  const known = await assetVersions();
  return Object.fromEntries(
    [...known].map(([name, version]) => [name, `/console/assets/${name}?v=${version}`]),
  );
}
