// The local server of `npm start` and `npm run bench`: the Worker of a wrangler config, bundled by wrangler
// exactly as `wrangler deploy` bundles it, served by Miniflare's API in one workerd with its Durable
// Objects, D1 databases and queues, persisted where `wrangler dev` keeps them. What it leaves out is only
// what `wrangler dev` adds for development: a second workerd proxying every request, a line logged per
// request, a local trace store and the file watcher (`npm run dev` keeps those).
import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

// Offline by design: no Request.cf download, no telemetry.
export const OFFLINE_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

// The installed wrangler, run by this Node: found whether or not npm has put node_modules/.bin on PATH.
// (The package exports only its API, so its bin is found next to its package.json.)
const WRANGLER = path.join(
  path.dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin/wrangler.js",
);

/** Runs wrangler to completion (CI=true answers its prompts, so it never waits on stdin). */
export function runWrangler(args, { quiet = false } = {}) {
  const result = spawnSync(process.execPath, [WRANGLER, ...args], {
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: { ...OFFLINE_ENV, CI: "true" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = quiet ? `\n${result.stderr}${result.stdout}` : " (its output is above)";
    throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed with exit ${result.status}${output}`);
  }
  return result.stdout;
}

/**
 * The Worker bundled into `outDir` by `wrangler deploy --dry-run` (same esbuild, module rules and Node
 * compatibility as a deploy), as Miniflare modules: the entry, then each Text module it imports.
 */
function bundle(configPath, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  runWrangler(["deploy", "--dry-run", "--outdir", outDir, "-c", configPath], { quiet: true });
  const files = readdirSync(outDir);
  // The entry is the one bundle with a source map (named after the config's `main`); the rest are the
  // Text modules it imports, copied as they are.
  const entry = files.find((file) => files.includes(`${file}.map`));
  const text = files.filter((file) => /\.(css|js)$/.test(file) && file !== entry);
  return [
    { type: "ESModule", path: path.join(outDir, entry) },
    ...text.map((file) => ({ type: "Text", path: path.join(outDir, file) })),
  ];
}

/**
 * Serves the Worker of `configPath` on `host:port` over the state under `persistTo` (wrangler's layout,
 * so `wrangler d1 … --local --persist-to` sees the same databases). `vars` are added to the config's.
 * Resolves `{ url, dispose }` once the runtime answers.
 */
export async function serveLocally({
  configPath,
  persistTo = ".wrangler/state",
  host = "127.0.0.1",
  port,
  vars = {},
  inspectorPort,
  quiet = false,
}) {
  // Absolute: wrangler resolves a relative --outdir against the config file's folder.
  const outDir = path.resolve(`${persistTo}-bundle`);
  const modules = bundle(configPath, outDir);
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath);
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      host,
      port: Number(port),
      inspectorPort: inspectorPort === undefined ? undefined : Number(inspectorPort),
      resourcePersistencePath: path.join(persistTo, "v3"),
      // No line per request; the Worker's own console output is workerd's, printed either way.
      logRequests: false,
      log: new Log(quiet ? LogLevel.ERROR : LogLevel.INFO),
      // Request.cf from placeholders, never downloaded (offline).
      cf: false,
      workers: [
        {
          ...workerOptions,
          name: "switchboard",
          modules,
          modulesRoot: outDir,
          bindings: { ...workerOptions.bindings, ...vars },
        },
      ],
    }),
  );
  const url = await miniflare.ready;
  return { url, dispose: () => miniflare.dispose() };
}
