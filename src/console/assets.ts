import style from "./assets/console.css";
import script from "./assets/console.js";

/** A short digest of an asset's text, put in its URL so a browser may cache each version for good. */
async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes).slice(0, 6)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

export interface ConsoleAsset {
  text: string;
  type: string;
}

/** The console's two files, served by the Worker itself (no CDN, no build step: wrangler.toml `[[rules]]`). */
export const CONSOLE_ASSETS: Record<string, ConsoleAsset> = {
  "console.js": { text: script, type: "text/javascript; charset=utf-8" },
  "console.css": { text: style, type: "text/css; charset=utf-8" },
};

let urls: Promise<Record<string, string>> | undefined;

/** Each asset's URL with its version, computed once per isolate. */
export function assetUrls(): Promise<Record<string, string>> {
  urls ??= (async () => {
    const entries = await Promise.all(
      Object.entries(CONSOLE_ASSETS).map(
        async ([name, asset]) => [name, `/console/assets/${name}?v=${await digest(asset.text)}`] as const,
      ),
    );
    return Object.fromEntries(entries);
  })();
  return urls;
}
