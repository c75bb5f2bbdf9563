#!/usr/bin/env node
// `node scripts/config-bundle-check.mjs <bundle-dir> <file>`: checks that a Worker bundle (`wrangler deploy
// --dry-run --outdir <bundle-dir>`) carries its environment's configuration file and no other file of
// config/ (SPEC §20: production ships no demo agents). esbuild writes a JSON import as an object literal,
// so each string of the file is looked for as a JS string literal: every distinctive string of its own
// file must be there, and no string found only in another file. Run by .ci/run for each environment.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const [bundleDir, ownFile] = process.argv.slice(2);
if (!bundleDir || !ownFile) {
  console.error("usage: config-bundle-check.mjs <bundle-dir> <config/file.json>");
  process.exit(2);
}
const ROOT = path.join(import.meta.dirname, "..");

/** Every string value of a JSON document, long enough not to occur in code by chance. */
function strings(file, minLength) {
  const found = new Set();
  const visit = (value) => {
    if (typeof value === "string" && value.length >= minLength) found.add(value);
    else if (value && typeof value === "object") for (const item of Object.values(value)) visit(item);
  };
  visit(JSON.parse(readFileSync(path.join(ROOT, file), "utf8")));
  return found;
}

const bundle = readdirSync(bundleDir)
  .filter((name) => name.endsWith(".js"))
  .map((name) => readFileSync(path.join(bundleDir, name), "utf8"))
  .join("\n");
// esbuild quotes a string with `"`, or with `'` when that needs fewer escapes.
const inBundle = (text) =>
  bundle.includes(JSON.stringify(text)) ||
  bundle.includes(`'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`);

const own = strings(ownFile, 12);
const absent = [...own].filter((text) => !inBundle(text));
const others = readdirSync(path.join(ROOT, "config"))
  .filter((name) => name.endsWith(".json") && path.join("config", name) !== path.normalize(ownFile))
  .map((name) => path.join("config", name));
const leaked = others.flatMap((file) =>
  [...strings(file, 20)].filter((text) => !own.has(text) && inBundle(text)).map((text) => `${file}: ${text}`),
);
if (own.size === 0) console.log(`note: ${ownFile} has no string long enough to look for`);
for (const text of absent) console.error(`missing from the bundle (${ownFile}): ${text}`);
for (const text of leaked) console.error(`in the bundle but not ${ownFile}'s: ${text}`);
if (absent.length > 0 || leaked.length > 0) process.exit(1);
console.log(`the bundle carries ${ownFile} (${own.size} strings found) and no other config/ file`);
