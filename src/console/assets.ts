import style from "./assets/console.css";
import script from "./assets/console.js";
import liveScript from "./assets/console-live.js";

export interface ConsoleAsset {
  text: string;
  type: string;
  /** A digest of the text: the `v` in the URL it is asked for by, so browsers may cache it for good. */
  version: string;
}

const JAVASCRIPT = "text/javascript; charset=utf-8";
const LIVE_IMPORT = '"./console-live.js"';

/** A short digest of an asset's text. */
async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes).slice(0, 6)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function asset(text: string, type: string): Promise<ConsoleAsset> {
  return { text, type, version: await digest(text) };
}

let assets: Promise<Map<string, ConsoleAsset>> | undefined;

/**
 * The console's files, served by the Worker itself (no CDN, no build step: wrangler.toml `[[rules]]`),
 * computed once per isolate. console.js imports console-live.js by that file's versioned URL, so the
 * two always come from the same deploy.
 */
function consoleAssets(): Promise<Map<string, ConsoleAsset>> {
  assets ??= (async () => {
    const live = await asset(liveScript, JAVASCRIPT);
    if (!script.includes(LIVE_IMPORT)) throw new Error(`console.js no longer imports ${LIVE_IMPORT}`);
    const main = script.replace(LIVE_IMPORT, `"./console-live.js?v=${live.version}"`);
    return new Map([
      ["console.js", await asset(main, JAVASCRIPT)],
      ["console-live.js", live],
      ["console.css", await asset(style, "text/css; charset=utf-8")],
    ]);
  })();
  return assets;
}

/** A console file by name; undefined for any other name. */
export async function consoleAsset(name: string): Promise<ConsoleAsset | undefined> {
  return (await consoleAssets()).get(name);
}

/** The shell's links: each asset's URL with its version. */
export async function assetUrls(): Promise<Record<string, string>> {
  const known = await consoleAssets();
  return Object.fromEntries(
    [...known].map(([name, { version }]) => [name, `/console/assets/${name}?v=${version}`]),
  );
}
