import { describe, expect, it } from "vitest";
import { runCli } from "../../packages/cli/src/main";
import { recordingFetch } from "../client/fixtures";
import { ADMIN, createSession, getSession, importMessages, msg, uid } from "../support";

// FRESH_STATE (vitest.config.ts): enforcing deletes every idle session of the agent.

const DAY = 86_400_000;

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { SWITCHBOARD_URL: "http://switchboard.test", SWITCHBOARD_TOKEN: ADMIN },
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stderrIsTTY: false,
    readFile: async (path) => {
      throw new Error(`ENOENT: ${path}`);
    },
    writeFile: async () => {},
    fetch: recordingFetch().fetch,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

describe("switchboard maintenance --enforce (SPEC §23)", () => {
  it("repeats bounded batches until done, printing each, then the totals and the report", async () => {
    // More idle sessions than one batch retires (RETIRE_BATCH, 20): at least two batches.
    const at = Date.now() - 40 * DAY;
    const keys = await Promise.all(
      Array.from({ length: 22 }, async () => {
        const key = `agent:main:cli-enforce-${uid()}`;
        await createSession({ agentId: "main", key });
        await importMessages(key, [msg(`u-${uid()}`, "user", "hello", at)]);
        return key;
      }),
    );
    const run = await cli(["maintenance", "--enforce"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^batch 1: 20 sessions deleted, /);
    expect(run.stderr).toMatch(/\nbatch 2: \d+ sessions? deleted, /);
    expect(run.stdout).toMatch(/^done in \d+(\.\d)? s \(\d+ batches\): (2[2-9]|[3-9]\d) sessions deleted, /);
    expect(run.stdout).toContain("\nagent main\n");
    expect(run.stdout).toMatch(/ {2}would delete {4}0 idle sessions\n/);
    for (const key of keys) expect((await getSession(key)).status).toBe(404);
  }, 90_000);
});
