#!/usr/bin/env node
// `npm run types:check` (CI): regenerates worker-configuration.d.ts with `npm run types` and fails if that
// differs from the committed file, printing the difference. Stricter than `wrangler types --check`, which
// compares only the hash in the file's header, so a hand edit of the file would pass it. The committed
// file is put back either way.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const FILE = path.join(import.meta.dirname, "..", "worker-configuration.d.ts");

const committed = readFileSync(FILE, "utf8");
const generate = spawnSync("npm", ["run", "--silent", "types"], { stdio: ["ignore", "ignore", "inherit"] });
const generated = readFileSync(FILE, "utf8");
writeFileSync(FILE, committed);

if (generate.status !== 0) {
  console.error("types:check: `npm run types` failed (its output is above)");
  process.exit(1);
}
if (generated !== committed) {
  const dir = mkdtempSync(path.join(tmpdir(), "types-check-"));
  writeFileSync(path.join(dir, "generated.d.ts"), generated);
  spawnSync("diff", ["-u", FILE, path.join(dir, "generated.d.ts")], { stdio: "inherit" });
  rmSync(dir, { recursive: true, force: true });
  console.error("types:check: worker-configuration.d.ts is out of date: run `npm run types` and commit it");
  process.exit(1);
}
console.log("types:check: worker-configuration.d.ts is up to date");
