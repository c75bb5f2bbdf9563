#!/usr/bin/env node
// `npm run test:cli`: runs the CLI (scripts/cli.mjs) against a real `wrangler dev` on loopback, with local
// tokens and a throw-away local state directory, and checks each command's output and exit code. Prints
// one `cli-check: N passed, M failed` line; exits non-zero on any failure. Stops wrangler afterwards.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, runChecks, startWrangler, LOCAL_TOKENS as TOKENS } from "./cli-check-wrangler.mjs";

const CLI = path.join(import.meta.dirname, "cli.mjs");
// The CLI package's own `bin` (packages/cli), which loads the same launcher.
const PACKAGE_BIN = path.join(import.meta.dirname, "..", "packages", "cli", "bin", "switchboard.mjs");

const state = mkdtempSync(path.join(tmpdir(), "switchboard-cli-check-"));
const results = [];
let server;

/**
 * One CLI run: exit code, stdout, stderr. `options` overrides spawnSync's (a live view's Ctrl-C); `bin` is
 * the launcher (scripts/cli.mjs unless named).
 */
function cli(args, env = {}, { bin = CLI, ...options } = {}) {
  const run = spawnSync(process.execPath, [bin, ...args], {
    cwd: state,
    // INIT_CWD: where relative file names resolve (npm sets it to where `npm run` was typed).
    env: { ...process.env, INIT_CWD: state, SWITCHBOARD_TOKEN: TOKENS.main, SWITCHBOARD_SESSION: "", ...env },
    encoding: "utf8",
    timeout: 30_000,
    ...options,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Records one named check: `test` returns nothing when it passes, or what went wrong. */
function check(name, run, test) {
  const problem = test(run);
  results.push({ name, ok: !problem });
  console.log(
    `${problem ? "✗" : "✓"} ${name}${problem ? `: ${problem}\n  stdout: ${run.stdout}\n  stderr: ${run.stderr}` : ""}`,
  );
}

const expectCode = (code, also) => (run) =>
  run.code !== code ? `exit ${run.code}, expected ${code}` : also?.(run);
const contains = (stream, text) => (run) =>
  run[stream].includes(text) ? undefined : `${stream} lacks ${JSON.stringify(text)}`;

async function main() {
  server = await startWrangler(path.join(state, "wrangler"));
  const url = server.url;
  const env = { SWITCHBOARD_URL: url };
  const transcript = [
    {
      id: "m1",
      role: "user",
      content: "Deploy with OPENAI_API_KEY=sk-1234567890abcdef1234 please",
      timestamp: 1763700000000,
    },
    {
      id: "m2",
      role: "assistant",
      content: "<think>check the key</think>Deployed.",
      timestamp: 1763700001000,
    },
  ];
  const jsonl = transcript.map((message) => `${JSON.stringify(message)}\n`).join("");
  writeFileSync(path.join(state, "in.jsonl"), jsonl);

  check("health", cli(["health"], env), expectCode(0, contains("stdout", "ok, version")));
  check(
    "health through packages/cli's bin",
    cli(["health"], env, { bin: PACKAGE_BIN }),
    expectCode(0, contains("stdout", "ok, version")),
  );
  check(
    "import creates the session",
    cli(["import", "main", "in.jsonl"], env),
    expectCode(0, contains("stdout", "imported 2 message(s)")),
  );
  check(
    "import again is idempotent",
    cli(["import", "main", "in.jsonl"], env),
    expectCode(0, contains("stdout", "skipped 2")),
  );
  check(
    "list: a table",
    cli(["list"], env),
    expectCode(0, (run) =>
      /^KEY\s+KIND\s+CHANNEL\s+UPDATED\s+TITLE\nagent:main:main\s+main\s/.test(run.stdout) &&
      run.stdout.includes("sk-123…1234")
        ? undefined
        : "no table row for agent:main:main with a redacted title",
    ),
  );
  check(
    "list --json",
    cli(["list", "--json"], env),
    expectCode(0, (run) => (JSON.parse(run.stdout).count >= 1 ? undefined : "no count")),
  );
  check(
    "history: cleaned and redacted",
    cli(["history", "main"], env),
    expectCode(0, (run) =>
      run.stdout.includes("  Deployed.") &&
      run.stdout.includes("sk-123…1234") &&
      !run.stdout.includes("think")
        ? undefined
        : "transcript not cleaned",
    ),
  );
  check("status", cli(["status"], env), expectCode(0, contains("stdout", "Session: agent:main:main")));
  check(
    "export to stdout is exact",
    cli(["export", "main"], env),
    expectCode(0, (run) => (run.stdout === jsonl ? undefined : "not byte-exact")),
  );
  check(
    "export --out",
    cli(["export", "main", "--out", "out.jsonl"], env),
    expectCode(0, () =>
      readFileSync(path.join(state, "out.jsonl"), "utf8") === jsonl ? undefined : "file not byte-exact",
    ),
  );

  check(
    "create (operator token)",
    cli(["create", "agent:research:main", "--token", "local-admin-token"], env),
    expectCode(0, contains("stdout", "created agent:research:main")),
  );
  check(
    "send: waits and prints the reply",
    cli(["send", "agent:research:main", "Summarize the Q3 incident reports", "--timeout", "15"], env),
    expectCode(0, contains("stdout", 'Findings on "Summarize the Q3 incident reports"')),
  );
  check(
    "send --timeout 0",
    cli(["send", "agent:research:main", "later", "--timeout", "0"], env),
    expectCode(0, contains("stdout", "accepted: run")),
  );
  check(
    "send --user",
    cli(["send", "main", "ping", "--user"], env),
    expectCode(0, (run) => (run.stdout === "pong\n" ? undefined : "no pong")),
  );
  check(
    "send --stream: the reply as it is written, then the run's status",
    cli(["send", "main", "ping", "--stream"], env),
    expectCode(0, (run) =>
      run.stdout === "pong\n" && /^run \S+: ok\n$/.test(run.stderr) ? undefined : "no streamed pong",
    ),
  );
  check(
    "follow --after 0: replays the session's events; Ctrl-C exits cleanly",
    // Ctrl-C after 4 s: the replay is printed by then, and the stream is live, waiting.
    cli(["follow", "main", "--after", "0"], env, { timeout: 4_000, killSignal: "SIGINT" }),
    expectCode(0, (run) =>
      /^\d\d:\d\d:\d\d {2}created /.test(run.stdout) &&
      run.stdout.includes("human  user: ping") &&
      run.stdout.includes("run_completed")
        ? undefined
        : "no replayed events",
    ),
  );
  check(
    "send to itself is the tool's error",
    cli(["send", "main", "hello"], env),
    expectCode(1, contains("stderr", "error: A session cannot send to itself")),
  );

  const spawned = cli(["spawn", "Check the Q3 numbers", "--agent", "research", "--timeout", "30"], env);
  if (spawned.code === 4)
    check("spawn: not served yet, says so", spawned, contains("stderr", "sessions_spawn is not available"));
  else {
    check(
      "spawn: follows the child to its completion",
      spawned,
      expectCode(0, contains("stdout", "status: completed successfully")),
    );
    check("subagents list", cli(["subagents"], env), expectCode(0, contains("stdout", "done")));
    // The completion's record lives on the child's session: the research agent's token sees it.
    check(
      "deliveries: the child's completion in the ledger",
      cli(["deliveries", "--kind", "completion"], { ...env, SWITCHBOARD_TOKEN: TOKENS.research }),
      expectCode(0, (run) =>
        /^ID\s+KIND\s+STATUS\s+TRIES\s+TARGET\s+SESSION\s/.test(run.stdout) &&
        run.stdout.includes(" completion ")
          ? undefined
          : "no table with the completion",
      ),
    );
    // main's own token: the record is research's, and the list says that such records exist.
    check(
      "deliveries: main's token says what visibility left out",
      cli(["deliveries", "--kind", "completion"], env),
      expectCode(
        0,
        contains(
          "stderr",
          "of other agents' sessions, addressed to this agent's sessions, not visible to this token",
        ),
      ),
    );
    check(
      "follow --tree: says the research child is not visible to main's token",
      cli(["follow", "main", "--tree", "--after", "0"], env, { timeout: 4_000, killSignal: "SIGINT" }),
      expectCode(0, contains("stdout", "--  1 session of this tree not visible to this token")),
    );
  }
  check(
    "deliveries retry of an unknown id says where to look",
    cli(["deliveries", "retry", "dlv_unknown"], env),
    expectCode(4, contains("stderr", "list the ones you can see with `switchboard deliveries`")),
  );

  check(
    "bad token",
    cli(["list"], { ...env, SWITCHBOARD_TOKEN: "wrong" }),
    expectCode(
      3,
      contains(
        "stderr",
        "the token was refused: check SWITCHBOARD_TOKEN (or --token); npm start prints the local tokens",
      ),
    ),
  );
  check(
    "forbidden",
    cli(["export", "agent:research:main"], env),
    expectCode(3, contains("stderr", `forbidden: an agent token for "main"`)),
  );
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  check(
    "unreachable",
    cli(["list", "--url", nowhere], env),
    expectCode(5, contains("stderr", `cannot reach ${nowhere}: is \`npm start\` running?`)),
  );
  check("usage error", cli(["send", "main"], env), expectCode(2, contains("stderr", "<message> required")));
  check(
    "--help per command",
    cli(["history", "--help"], env),
    expectCode(0, contains("stdout", "switchboard history [session]")),
  );
}

await runChecks("cli-check", main, { results, scratch: state, server: () => server });
