#!/usr/bin/env node
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
// Bundles scripts/bench/provider-cpu.ts for Node and runs it (see there).
import { build } from "esbuild";

const out = path.join(mkdtempSync(path.join(tmpdir(), "provider-cpu-")), "bench.mjs");
await build({
  entryPoints: [path.join(import.meta.dirname, "provider-cpu.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: out,
  logLevel: "error",
});
await import(out);
