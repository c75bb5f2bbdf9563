#!/usr/bin/env node
// `npm run config:check [file…] [--secrets NAME,NAME] [--strict]`: validates configuration files with the
// Worker's own schema and loader (src/config/check.ts, bundled here with the esbuild wrangler ships, so
// the check and the Worker cannot disagree), and reports the secrets each names that its environment
// lacks, by name only (SPEC §20). Default: every config/*.json. A local file (config/local.json,
// config/demo.json) is checked against .dev.vars and this process's environment; any other file (a
// deployed environment's, e.g. config/production.json) against `--secrets` if given (say
// `npx wrangler secret list --env production`'s names), else this process's environment. Exits 1 on an
// invalid file; missing secrets are reported, and fail the check only with --strict.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs, parseEnv } from "node:util";
import { build } from "esbuild";

const ROOT = path.join(import.meta.dirname, "..");
const LOCAL_FILES = new Set(["local.json", "demo.json"]);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { secrets: { type: "string" }, strict: { type: "boolean", default: false } },
});

/** src/config/check.ts as a Node module: bundled to a scratch file, imported, the file removed. */
async function loadChecker() {
  const dir = mkdtempSync(path.join(tmpdir(), "switchboard-config-check-"));
  try {
    const outfile = path.join(dir, "check.mjs");
    await build({
      entryPoints: [path.join(ROOT, "src/config/check.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile,
      logLevel: "error",
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The names a file's environment sets (never their values). */
function namesFor(file) {
  if (values.secrets !== undefined && !LOCAL_FILES.has(path.basename(file)))
    return new Set(
      values.secrets
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    );
  const names = new Set(Object.keys(process.env).filter((name) => process.env[name]));
  const devVars = path.join(ROOT, ".dev.vars");
  if (LOCAL_FILES.has(path.basename(file)) && existsSync(devVars))
    for (const [name, value] of Object.entries(parseEnv(readFileSync(devVars, "utf8"))))
      if (value) names.add(name);
  return names;
}

const files =
  positionals.length > 0
    ? positionals
    : readdirSync(path.join(ROOT, "config"))
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => path.join("config", name));

const { checkConfigText } = await loadChecker();
let failed = false;
for (const file of files) {
  const relative = path.relative(process.cwd(), path.resolve(file));
  const shown = relative && !relative.startsWith("..") ? relative : file;
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    console.log(`FAIL ${shown}: cannot read it (${error.code ?? error.message})`);
    failed = true;
    continue;
  }
  const names = namesFor(file);
  const check = checkConfigText(text, shown, (name) => names.has(name));
  if (check.error) {
    console.log(`FAIL ${check.error}`);
    failed = true;
  } else if (check.missingSecrets.length > 0) {
    const where = LOCAL_FILES.has(path.basename(file)) ? "in .dev.vars" : "as Worker secrets";
    console.log(
      `${values.strict ? "FAIL" : "warn"} ${shown}: valid; missing secrets (set them ${where}): ${check.missingSecrets.join(", ")}`,
    );
    if (values.strict) failed = true;
  } else console.log(`ok   ${shown}`);
}
process.exit(failed ? 1 : 0);
