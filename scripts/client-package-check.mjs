#!/usr/bin/env node
// `npm run test:client-package`: packs packages/client as `npm publish` would (its prepack builds it),
// installs the tarball offline into a scratch project, and uses it there as a third party would: plain
// Node ESM against a real `wrangler dev`, and a TypeScript file checked against the published .d.ts
// alone. Prints one `client-package-check: N passed, M failed` line; exits non-zero on any failure.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LOCAL_TOKENS, runChecks, startWrangler } from "./cli-check-wrangler.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const PACKAGE_DIR = path.join(ROOT, "packages", "client");
const TSC = path.join(ROOT, "node_modules", ".bin", "tsc");
// npm and tsc must run on this Node (the project's), even outside `npm run`.
const ENV = { ...process.env, PATH: [path.dirname(process.execPath), process.env.PATH].join(path.delimiter) };

const scratch = mkdtempSync(path.join(tmpdir(), "switchboard-client-package-"));
const results = [];
let server;

/** Runs a command to its end; throws with its output when it fails. */
function run(command, args, cwd) {
  const done = spawnSync(command, args, { cwd, env: ENV, encoding: "utf8", timeout: 120_000 });
  if (done.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (${done.status}):\n${done.stdout}${done.stderr}`);
  return done.stdout;
}

/** Records one named check: `problem` is undefined when it passes, else what went wrong. */
function check(name, problem) {
  results.push({ name, ok: !problem });
  console.log(`${problem ? "✗" : "✓"} ${name}${problem ? `: ${problem}` : ""}`);
}

/** Every package folder under a node_modules (scoped ones as `@scope/name`). */
function installedPackages(nodeModules) {
  const names = [];
  for (const entry of readdirSync(nodeModules)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@"))
      for (const inner of readdirSync(path.join(nodeModules, entry))) names.push(`${entry}/${inner}`);
    else names.push(entry);
  }
  return names;
}

// What the scratch project runs: the built package from plain Node, no TypeScript anywhere.
const CONSUMER = `import { isToolFailure, SwitchboardClient, UnauthorizedError } from "@switchboard/client";

const client = new SwitchboardClient({ baseUrl: process.argv[2], token: ${JSON.stringify(LOCAL_TOKENS.main)} });
const out = { health: await client.healthz() };
out.created = (await client.createSession({ key: "main" })).key;
out.imported = await client.importTranscript("main", [
  { id: "m1", role: "user", content: "Deploy with OPENAI_API_KEY=sk-1234567890abcdef1234 please", timestamp: 1763700000000 },
]);
out.listed = (await client.sessionsList()).sessions.map((row) => row.key);
const page = await client.sessionsHistory({ sessionKey: "main" });
out.history = isToolFailure(page) ? page : page.messages.map((message) => message.content);
try {
  await client.with({ token: "not-a-token" }).sessionsList();
} catch (error) {
  out.refused = { unauthorized: error instanceof UnauthorizedError, status: error.status };
}
out.streamed = [];
for await (const item of client.sendStreamed("main", "ping")) out.streamed.push(item.kind);
console.log(JSON.stringify(out));
`;

// The same calls typed: checked against the package's own .d.ts (skipLibCheck off), no server types.
const TYPED_CONSUMER = `import { SwitchboardClient, type SessionRow, type SwitchboardError } from "@switchboard/client";

const client = new SwitchboardClient({ baseUrl: "http://127.0.0.1:8787", token: "t" });
const rows: SessionRow[] = (await client.sessionsList({ limit: 5 })).sessions;
const wait = await client.waitRun("run-1", { timeoutMs: 10 });
const status: "ok" | "error" | "timeout" = wait.status;
const kind: SwitchboardError["kind"] | undefined = undefined;
for await (const item of client.sendStreamed("main", "hi")) if (item.kind === "delta") item.data.text.at(0);
export { kind, rows, status };
`;
const TYPED_TSCONFIG = {
  compilerOptions: {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    lib: ["es2022", "dom", "dom.asynciterable"],
    types: [],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  },
  files: ["typed.ts"],
};

async function main() {
  // 1. Pack: prepack builds dist/ from the sources.
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", scratch], PACKAGE_DIR));
  const tarball = path.join(scratch, packed.filename);
  const files = packed.files.map((file) => file.path).sort();
  const kib = (statSync(tarball).size / 1024).toFixed(1);
  console.log(`packed ${packed.id}: ${kib} KiB, ${files.length} files`);
  const strays = files.filter(
    (file) => !/^(?:dist\/[\w-]+\.(?:js|d\.ts)|package\.json|README\.md)$/.test(file),
  );
  check(
    "the tarball holds dist/, package.json and README.md only",
    strays.length ? strays.join(", ") : undefined,
  );
  check("it has its README", files.includes("README.md") ? undefined : "no README.md");

  // 2. Install it offline into a scratch project: with no dependencies, nothing is fetched.
  const project = path.join(scratch, "project");
  mkdirSync(project);
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  run("npm", ["install", tarball, "--offline", "--no-audit", "--no-fund", "--loglevel=error"], project);
  const installed = installedPackages(path.join(project, "node_modules"));
  const lock = JSON.parse(readFileSync(path.join(project, "package-lock.json"), "utf8"));
  const locked = Object.keys(lock.packages).filter((key) => key !== "");
  console.log(`installed: ${installed.join(", ")} (${installed.length - 1} dependencies)`);
  check(
    "installing pulls no other package",
    installed.length === 1 && installed[0] === "@switchboard/client" && locked.length === 1
      ? undefined
      : `node_modules holds ${installed.join(", ")}; the lockfile ${locked.join(", ")}`,
  );

  // 3. Types: a TypeScript consumer compiles against the published declarations alone.
  writeFileSync(path.join(project, "typed.ts"), TYPED_CONSUMER);
  writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify(TYPED_TSCONFIG));
  const typed = spawnSync(TSC, ["-p", "tsconfig.json"], { cwd: project, env: ENV, encoding: "utf8" });
  check("its .d.ts type a consumer with no server types", typed.status === 0 ? undefined : typed.stdout);

  // 4. Plain Node ESM against a running server.
  server = await startWrangler(path.join(scratch, "wrangler"));
  writeFileSync(path.join(project, "consumer.mjs"), CONSUMER);
  const used = spawnSync(process.execPath, ["consumer.mjs", server.url], {
    cwd: project,
    env: ENV,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (used.status !== 0) throw new Error(`consumer.mjs failed:\n${used.stdout}${used.stderr}`);
  const out = JSON.parse(used.stdout);
  check("healthz", out.health?.ok === true ? undefined : JSON.stringify(out.health));
  check("createSession", out.created === "agent:main:main" ? undefined : JSON.stringify(out.created));
  check("importTranscript", out.imported?.imported === 1 ? undefined : JSON.stringify(out.imported));
  check("sessionsList", out.listed?.includes("agent:main:main") ? undefined : JSON.stringify(out.listed));
  check(
    "sessionsHistory: made safe",
    out.history?.[0]?.includes("sk-123…1234") ? undefined : JSON.stringify(out.history),
  );
  check(
    "a refused token throws UnauthorizedError",
    out.refused?.unauthorized && out.refused.status === 401 ? undefined : JSON.stringify(out.refused),
  );
  check(
    "sendStreamed reads the run's stream to its end",
    out.streamed?.at(-1) === "run_completed" && out.streamed.includes("delta")
      ? undefined
      : JSON.stringify(out.streamed),
  );
}

await runChecks("client-package-check", main, { results, scratch, server: () => server });
