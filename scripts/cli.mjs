#!/usr/bin/env node
// `switchboard` / `npm run cli --` (and packages/cli's `bin`): runs the CLI's TypeScript source
// (packages/cli/src/main.ts) directly, with no build step. Node ≥ 22.18 strips the types itself; the project's
// sources import each other without the `.ts` extension (bundler style), so a resolve hook adds it for
// relative imports from .ts files.
import { readFile, writeFile } from "node:fs/promises";
import { registerHooks } from "node:module";
import path from "node:path";

if (process.features.typescript === undefined || typeof registerHooks !== "function") {
  console.error(
    `switchboard needs Node ≥ 22.18 (this is ${process.version}); run it through npm (\`npm run cli -- …\` ` +
      "or `npx switchboard …`), which uses the project's own Node.",
  );
  process.exit(2);
}

const RELATIVE_WITHOUT_EXTENSION = /^\.\.?\/(?:.*\/)?[^./]+$/;
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (RELATIVE_WITHOUT_EXTENSION.test(specifier) && context.parentURL?.endsWith(".ts"))
      return nextResolve(`${specifier}.ts`, context);
    return nextResolve(specifier, context);
  },
});

const { runCli } = await import("../packages/cli/src/main.ts");

// `npm run cli` runs in the package root; relative file names mean where the command was typed.
const fromCaller = (file) => path.resolve(process.env.INIT_CWD ?? process.cwd(), file);

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  readFile: (file) => readFile(fromCaller(file), "utf8"),
  writeFile: (file, text) => writeFile(fromCaller(file), text, "utf8"),
  onInterrupt: (handler) => {
    process.on("SIGINT", handler);
    return () => process.off("SIGINT", handler);
  },
});
// Let stdout drain (a piped export can be large) before the exit code is set.
process.exitCode = code;
