#!/usr/bin/env node
// `node scripts/bundle-size.mjs <outdir>`: the size of the Worker that `wrangler deploy --dry-run --outdir
// <outdir>` bundled (every module but source maps), raw and gzipped, against a budget well under the Free
// plan's 3 MB: Scalar's 4.35 MB bundle once made it 6.4 MB (1.7 MB gzipped), and /docs loads it as a
// static asset instead (wrangler.toml [assets]). Exits non-zero over budget.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";

const RAW_BUDGET = 3_000_000;
const GZIP_BUDGET = 1_000_000;

const outDir = process.argv[2];
if (!outDir) throw new Error("usage: node scripts/bundle-size.mjs <outdir>");
const modules = readdirSync(outDir).filter((file) => /\.(js|mjs|css|txt|html|wasm)$/.test(file));
const bytes = Buffer.concat(modules.map((file) => readFileSync(path.join(outDir, file))));
const raw = bytes.length;
const gzip = gzipSync(bytes, { level: 9 }).length;
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const over = raw > RAW_BUDGET || gzip > GZIP_BUDGET;
console.log(
  `Worker bundle: ${mb(raw)} (${mb(gzip)} gzipped) in ${modules.length} modules; budget ${mb(RAW_BUDGET)} (${mb(GZIP_BUDGET)} gzipped)${over ? ": OVER" : ""}`,
);
process.exit(over ? 1 : 0);
