import { describe, expect, it } from "vitest";
import type { CliIo } from "../../packages/cli/src/io";
import { runCli } from "../../packages/cli/src/main";
import { deriveKey } from "../../src/auth/purpose-keys";
import {
  ADMIN,
  AGENT_TOKENS,
  channelSecret,
  createSession,
  createSpawned,
  drive,
  driveUntil,
  inbound,
  postInbound,
  SIGNING_KEY,
  sendMessage,
  settleAll,
  spawnOk,
  uid,
  waitRun,
  webhookAgentSecret,
} from "../support";
import { recordingFetch, suspendedDelivery } from "./fixtures";

/** Runs the CLI against the Worker with in-memory files; returns its exit code and output. */
async function cli(
  argv: string[],
  options: {
    env?: Record<string, string>;
    files?: Map<string, string>;
    fetch?: CliIo["fetch"];
    /** Sees the output so far after each write; `interrupt` is Ctrl-C. */
    onOutput?: (stdout: string, interrupt: () => void) => void;
  } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const files = options.files ?? new Map<string, string>();
  let interrupted: (() => void) | undefined;
  const interrupt = () => interrupted?.();
  const code = await runCli(argv, {
    env: { SWITCHBOARD_URL: "http://switchboard.test", SWITCHBOARD_TOKEN: AGENT_TOKENS.main, ...options.env },
    stdout: (text) => {
      out.push(text);
      options.onOutput?.(out.join(""), interrupt);
    },
    onInterrupt: (handler) => {
      interrupted = handler;
      return () => {
        interrupted = undefined;
      };
    },
    stderr: (text) => err.push(text),
    stderrIsTTY: false,
    readFile: async (path) => {
      const text = files.get(path);
      if (text === undefined) throw new Error(`ENOENT: ${path}`);
      return text;
    },
    writeFile: async (path, text) => {
      files.set(path, text);
    },
    fetch: options.fetch ?? recordingFetch().fetch,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

const line = (id: string, role: string, content: string, timestamp: number) =>
  JSON.stringify({ id, role, content, timestamp });

describe("CLI commands (in workerd, against the Worker)", () => {
  it("import creates the session, then list, history and export read it back", async () => {
    const key = `agent:main:cli-${uid()}`;
    const jsonl = `${line("c1", "user", `deploy cli-${key}`, 1_763_700_000_000)}\n${line("c2", "assistant", "<think>x</think>Done.", 1_763_700_001_000)}\n`;
    const files = new Map([["in.jsonl", jsonl]]);
    const imported = await cli(["import", key, "in.jsonl"], { files });
    expect(imported).toMatchObject({
      code: 0,
      stdout: "imported 2 message(s), skipped 0 already there; 2 in total\n",
    });
    expect(imported.stderr).toBe(`created session ${key}\n`);

    // Tree visibility: the agent token names the session itself as the requester.
    const asKey = { env: { SWITCHBOARD_SESSION: key } };
    const listed = await cli(["list", "--search", key], asKey);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")[0]).toMatch(/^KEY\s+KIND\s+CHANNEL\s+UPDATED\s+TITLE$/);
    expect(listed.stdout).toContain(key);

    const history = await cli(["history", key], asKey);
    expect(history.code).toBe(0);
    expect(history.stdout).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}assistant\n {2}Done\.\n/);

    const exported = await cli(["export", key, "--out", "out.jsonl"], { files });
    expect(exported.code).toBe(0);
    expect(files.get("out.jsonl")).toBe(jsonl);
  });

  it("send --user prints the reply; --json prints the raw answer", async () => {
    const key = `agent:main:cli-${uid()}`;
    await cli(["import", key, "in.jsonl"], { files: new Map([["in.jsonl", line("s1", "user", "hi", 1)]]) });
    expect(await cli(["send", key, "ping", "--user", "--timeout", "10"])).toMatchObject({
      code: 0,
      stdout: "pong\n",
    });
    const json = await cli(["status", "--session", key, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, sessionKey: key });
  });

  it("send --stream prints the reply as it is written, then the run's status", async () => {
    const key = `agent:main:cli-${uid()}`;
    await createSession({ agentId: "main", key });
    const recorded = recordingFetch();
    const streamed = await cli(["send", key, "ping", "--stream"], { fetch: recorded.fetch });
    expect(streamed).toMatchObject({ code: 0, stdout: "pong\n" });
    expect(streamed.stderr).toMatch(/^run [0-9a-f-]{36}: ok\n$/);
    expect(JSON.parse(recorded.requests.at(-1)?.body ?? "{}")).toMatchObject({ text: "ping", stream: true });
    const json = await cli(["send", key, "ping", "--stream", "--json"]);
    const kinds = json.stdout
      .trim()
      .split("\n")
      .map((text) => (JSON.parse(text) as { kind: string }).kind);
    expect(kinds).toEqual(["run_queued", "run_started", "delta", "run_completed"]);
    expect((await cli(["send", key, "ping", "--stream", "--timeout", "5"])).code).toBe(2);
  });

  it("follow replays, prints events live as they come (with --replies the reply inline), and Ctrl-C ends it cleanly", async () => {
    const key = `agent:main:cli-${uid()}`;
    await createSession({ agentId: "main", key });
    await waitRun(await sendMessage(key, "ping"));
    let sentLive = false;
    const followed = await cli(["follow", key, "--after", "1", "--replies"], {
      onOutput: (stdout, interrupt) => {
        const ends = stdout.split("run_completed").length - 1;
        // The second turn is sent only once the first was printed: its events can only arrive live.
        if (ends === 1 && !sentLive) {
          sentLive = true;
          void sendMessage(key, "hello there");
        }
        if (ends === 2) interrupt();
      },
    });
    expect(followed.code, followed.stderr).toBe(0);
    const lines = followed.stdout.trimEnd().split("\n");
    const kinds = lines.map((text) => /^\d\d:\d\d:\d\d {2}(\w+)/.exec(text)?.[1] ?? text.trim());
    expect(kinds).toEqual([
      "message",
      "run_queued",
      "run_started",
      "↳ pong",
      "message",
      "run_completed",
      "message",
      "run_queued",
      "run_started",
      "↳ Got it: hello there",
      "message",
      "run_completed",
    ]);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}message {10}human {2}user: ping$/);
    expect(lines[4]).toMatch(/ {2}assistant: pong$/);
    expect(lines[2]).toMatch(/ {2}run_started {6}system {2}run started$/);
  });

  it("errors: bad token, forbidden, unreachable, usage; each with its exit code", async () => {
    const refused = await cli(["list"], { env: { SWITCHBOARD_TOKEN: "nope" } });
    expect(refused).toMatchObject({ code: 3, stdout: "" });
    expect(refused.stderr).toContain("the token was refused: check SWITCHBOARD_TOKEN");

    const forbidden = await cli(["export", "agent:research:main"]);
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toContain(
      `forbidden: an agent token for "main" reaches only that agent's sessions`,
    );

    const operator = await cli(["list"], { env: { SWITCHBOARD_TOKEN: ADMIN } });
    expect(operator.code).toBe(1);
    expect(operator.stderr).toContain("--session");

    const unreachable = await cli(["list"], {
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    expect(unreachable.code).toBe(5);
    expect(unreachable.stderr).toContain("cannot reach http://switchboard.test: is `npm start` running?");

    const usage = await cli(["send", "main"]);
    expect(usage).toMatchObject({ code: 2, stderr: "<message> required\nsee: switchboard send --help\n" });
    expect((await cli(["list", "--bogus"])).code).toBe(2);
  });

  it("send --steer asks for mode=steer and answers at once; with nothing running it says what to do", async () => {
    const recorded = recordingFetch();
    const steered = await cli(["send", "main", "turn left", "--steer", "--timeout", "20"], {
      fetch: recorded.fetch,
    });
    const request = recorded.requests.at(-1);
    expect(request?.path).toBe("/v1/tools/sessions_send");
    expect(JSON.parse(request?.body ?? "{}")).toEqual({
      sessionKey: "main",
      message: "turn left",
      mode: "steer",
      timeoutSeconds: 0,
    });
    expect(steered).toMatchObject({
      code: 1,
      stderr:
        "error: Target has no active run that accepts steering. Use mode=followup to start a new turn.\n",
    });
    expect((await cli(["send", "main", "hi", "--steer", "--user"])).code).toBe(2);
  });

  it("sessions patch|delete and list --archived true|false|all, --offset", async () => {
    const key = `agent:main:cli-${uid()}`;
    await cli(["import", key, "in.jsonl"], { files: new Map([["in.jsonl", line("p1", "user", "hi", 1)]]) });
    const asKey = { env: { SWITCHBOARD_SESSION: key } };
    expect(
      await cli(["sessions", "patch", "current", "--label", "cli", "--pinned", "true"], asKey),
    ).toMatchObject({
      code: 0,
      stdout: `updated ${key}: label, pinned\n`,
    });
    expect(await cli(["sessions", "patch", key, "--archived", "true"], asKey)).toMatchObject({
      code: 0,
      stdout: `updated ${key}: archived\n`,
    });
    const rows = async (...flags: string[]) =>
      JSON.parse((await cli(["list", "--json", ...flags], asKey)).stdout) as { sessions: object[] };
    expect((await rows("--archived", "true")).sessions).toEqual([
      expect.objectContaining({ key, label: "cli", pinned: true, archived: true }),
    ]);
    expect((await rows()).sessions).toEqual([]);
    expect((await rows("--archived", "all", "--offset", "0")).sessions).toHaveLength(1);
    expect((await rows("--archived", "all", "--offset", "1")).sessions).toEqual([]);
    expect((await cli(["list", "--archived", "maybe"], asKey)).code).toBe(2);

    // --expected-session-id is passed on: a sessionId of another generation is refused.
    const stale = await cli(
      ["sessions", "patch", key, "--archived", "false", "--expected-session-id", "old"],
      asKey,
    );
    expect(stale).toMatchObject({ code: 1, stderr: `error: Session ${key} changed before patch. Retry.\n` });
    const own = await cli(["sessions", "delete", key], asKey);
    expect(own).toMatchObject({ code: 1, stderr: "error: Cannot delete the session running this tool\n" });
    expect((await cli(["sessions", "archive", key], asKey)).code).toBe(2);
    expect((await cli(["sessions", "patch", key, "--pinned", "yes"], asKey)).code).toBe(2);
  });

  it("grant prints a token that reads its session; revoke-grant ends it", async () => {
    const key = `agent:main:cli-${uid()}`;
    await createSession({ agentId: "main", key });
    const granted = await cli(["grant", key, "--scopes", "read,events", "--ttl", "2h", "--json"]);
    expect(granted.code, granted.stderr).toBe(0);
    const grant = JSON.parse(granted.stdout) as { grantId: string; token: string; expiresAt: number };
    expect(grant).toMatchObject({ sessionKey: key, scopes: ["read", "events"] });
    expect(grant.expiresAt).toBeGreaterThan(Date.now() + 7_100_000);
    const asGrant = { env: { SWITCHBOARD_TOKEN: grant.token } };
    expect((await cli(["send", key, "hi", "--user"], asGrant)).code).toBe(3);
    expect(await cli(["revoke-grant", grant.grantId])).toMatchObject({
      code: 0,
      stdout: `revoked ${grant.grantId}\n`,
    });
    expect((await cli(["grant", key, "--scopes", "read", "--ttl", "soon"])).code).toBe(2);
    expect((await cli(["grant", key, "--scopes", "read", "--ttl", "30s"])).code).toBe(1);
  });

  it("search prints readable hits, pages with --cursor, filters with --session and --role, and --json", async () => {
    const u = uid();
    const key = `agent:main:cli-search-${u}`;
    const word = `zcli${u}`;
    const jsonl = [1, 2, 3]
      .map((i) => line(`q${i}`, i === 2 ? "assistant" : "user", `${word} line ${i}`, 1_763_700_000_000 + i))
      .join("\n");
    expect((await cli(["import", key, "in.jsonl"], { files: new Map([["in.jsonl", jsonl]]) })).code).toBe(0);
    const asKey = { env: { SWITCHBOARD_SESSION: key } };
    const first = await cli(["search", word, "--limit", "2"], asKey);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^${key}  (user|assistant)  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  score \\d+\\.\\d\\d\\n  ${word} line \\d\\n`,
      ),
    );
    const cursor = first.stderr.match(/\(more: --cursor (\S+)\)/)?.[1];
    expect(cursor).toBeDefined();
    const second = await cli(["search", word, "--limit", "2", "--cursor", cursor ?? ""], asKey);
    expect(second.stdout.match(new RegExp(word, "g"))).toHaveLength(1);
    expect(second.stderr).toBe("");
    const assistant = await cli(["search", word, "--session", key, "--role", "assistant", "--json"]);
    expect(JSON.parse(assistant.stdout)).toEqual({
      results: [expect.objectContaining({ sessionKey: key, messageId: "q2", role: "assistant" })],
    });
    const none = await cli(["search", `nothing${u}`], asKey);
    expect(none).toMatchObject({ code: 0, stdout: "", stderr: "no matches\n" });
    expect((await cli(["search", word, "--role", "system"], asKey)).code).toBe(2);
    expect((await cli(["search"], asKey)).code).toBe(2);
  });

  it("--help per command", async () => {
    const help = await cli(["send", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("switchboard send <session> <message…>");
    expect(help.stdout).toContain("--timeout N");
  });

  it("follow --tree says how many of the tree's sessions the token may not read", async () => {
    const u = uid();
    const root = `agent:main:cli-tree-${u}`;
    const theirs = `agent:research:subagent:cli-tree-${u}`;
    await createSession({ agentId: "main", key: root });
    await createSpawned({ sessionKey: theirs, agentId: "research", spawnedBy: root, spawnDepth: 1 });
    await drive([root, theirs]);
    const followed = await cli(["follow", root, "--tree", "--after", "0"], {
      // Its line comes before any event; then the root's first event, and Ctrl-C.
      onOutput: (stdout, interrupt) => {
        if (stdout.includes(`[${root}]`)) interrupt();
      },
    });
    expect(followed.code, followed.stderr).toBe(0);
    const [first, second] = followed.stdout.split("\n");
    expect(first).toBe(
      "--  1 session of this tree not visible to this token (other agents', or beyond its visibility): their events are left out",
    );
    expect(second).toContain(`[${root}]`);
    expect(followed.stdout).not.toContain(theirs);
  });

  it("deliveries says how many records of other agents' sessions are addressed to its own", async () => {
    const r = `agent:main:cli-dlv-${uid()}`;
    await createSession({ agentId: "main", key: r });
    const { child } = await spawnOk(r, { task: "a quick look", agentId: "research" });
    await settleAll([r, child]);
    await driveUntil(
      [r, child],
      async () =>
        (
          await cli(["deliveries", "--session", child], { env: { SWITCHBOARD_TOKEN: ADMIN } })
        ).stdout.includes(" completion ")
          ? true
          : undefined,
      "the child's completion in the index",
    );
    // The completion is the research agent's record: main's token lists none of its own here.
    const listed = await cli(["deliveries", "--kind", "completion", "--session", r]);
    expect(listed.stderr).toBe("no deliveries\n");
    const all = await cli(["deliveries", "--kind", "completion"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).not.toContain(child);
    expect(all.stderr).toMatch(
      /^(no deliveries\n)?\d+ records? of other agents' sessions, addressed to this agent's sessions, not visible to this token \(the operator token lists them\)\n$/,
    );
  });

  it("deliveries lists a page at a time, shows, dismisses and retries; a refusal says what to do", async () => {
    const chat = `dm-${uid()}`;
    const older = await suspendedDelivery(chat);
    const newer = await suspendedDelivery(chat);
    const key = older.sessionKey;
    expect(newer.sessionKey).toBe(key);
    const first = await cli(["deliveries", "--session", key, "--limit", "1"]);
    expect(first.code, first.stderr).toBe(0);
    const [header, row, ...more] = first.stdout.trimEnd().split("\n");
    expect(header).toMatch(
      /^ID\s+KIND\s+STATUS\s+TRIES\s+TARGET\s+SESSION\s+CREATED\s+UPDATED\s+LAST ERROR$/,
    );
    const ago = "(?:just now|\\d+m ago)";
    expect(row).toMatch(
      new RegExp(
        `^${newer.deliveryId}\\s+reply\\s+suspended\\s+\\d+\\s+slack:\\S+\\s+${key}\\s+${ago}\\s+${ago}\\s+the queue gave up$`,
      ),
    );
    expect(more).toEqual([]);
    const hint = /^\(more: switchboard (deliveries --session \S+ --limit 1 --cursor \S+)\)$/.exec(
      first.stderr.trim(),
    );
    const next = await cli(hint?.[1]?.split(" ") ?? []);
    expect(next.stdout).toContain(older.deliveryId);
    expect(next.stdout).not.toContain(newer.deliveryId);
    expect(next.stderr).toBe("");

    const id = older.deliveryId;
    const shown = await cli(["deliveries", "show", id]);
    expect(shown.stdout).toMatch(new RegExp(`^delivery:\\s+${id}\nkind:\\s+reply\nstatus:\\s+suspended\n`));
    expect(shown.stdout).toMatch(/^last error:\s+the queue gave up$/m);
    const dismissed = await cli(["deliveries", "dismiss", id]);
    expect(dismissed.code).toBe(0);
    expect(dismissed.stdout).toMatch(/^status:\s+dismissed$/m);
    const retried = await cli(["deliveries", "retry", id, "--json"]);
    expect(JSON.parse(retried.stdout)).toMatchObject({ deliveryId: id, status: "pending", attempts: 0 });
    const refused = await cli(["deliveries", "retry", id]);
    expect(refused.code).toBe(1);
    // Pending, or already handed to the Queue again.
    expect(refused.stderr).toMatch(
      new RegExp(
        `^retry delivery ${id}: delivery ${id} is (pending|in_progress): only a suspended, failed or dismissed one \\(or one silent on the Queue for 15 minutes\\) can be retried\nsee where it stands: switchboard deliveries show ${id}\n$`,
      ),
    );
    const unknown = await cli(["deliveries", "dismiss", "nope"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toBe(
      "delivery nope not found (or not your agent's): list the ones you can see with `switchboard deliveries`\n",
    );
    const badStatus = await cli(["deliveries", "--status", "lost"]);
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toContain("status");
    expect((await cli(["deliveries", "resend", id])).code).toBe(2);
  });

  it("channels connect prints Slack's manifest and Telegram's webhook; channels status shows both views (SPEC §21)", async () => {
    const env = { SWITCHBOARD_TOKEN: ADMIN };
    const slack = await cli(["channels", "connect", "slack-bot"], { env });
    expect(slack.code).toBe(0);
    expect(slack.stdout).toContain('"request_url": "http://switchboard.test/v1/channels/slack-bot/messages"');
    expect(slack.stdout).toContain('"app_mentions:read"');
    const telegram = await cli(["channels", "connect", "tg-bot", "--public-url", "https://bot.example.com"], {
      env,
    });
    expect(telegram.stdout).toContain(
      "Telegram webhook set to https://bot.example.com/v1/channels/tg-bot/messages",
    );
    const status = await cli(["channels", "status", "tg-bot"], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      /platform url: +https:\/\/bot\.example\.com\/v1\/channels\/tg-bot\/messages/,
    );
    expect(status.stdout).toContain("platform pending_update_count");
    expect(status.stdout).toMatch(/ignored: +\d+/);
    const agent = await cli(["channels", "status", "tg-bot"]);
    expect(agent.code).not.toBe(0);
    const slackStatus = await cli(["channels", "status", "slack-bot"], { env });
    expect(slackStatus.stdout).toMatch(/platform team: +Switchboard Test/);
    expect(slackStatus.stdout).toMatch(/platform user: +switchboard/);
    const discordStatus = await cli(["channels", "status", "discord-bot"], { env });
    expect(discordStatus.stdout).toMatch(/platform name: +Switchboard Test/);
    expect(discordStatus.stdout).toMatch(/platform ask_registered: +(true|false)/);
  });

  it("maintenance --dry-run reports storage per agent and shard as a person reads it (SPEC §23)", async () => {
    const env = { SWITCHBOARD_TOKEN: ADMIN };
    const key = `agent:main:cli-maint-${uid()}`;
    await cli(["import", key, "in.jsonl"], {
      files: new Map([["in.jsonl", `${line("d1", "user", "hello", Date.now())}\n`]]),
    });
    const report = await cli(["maintenance", "--dry-run"], { env });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^Storage \(dry run: nothing changed\)\n\nagent main\n/);
    expect(report.stdout).toMatch(/ {2}sessions {8}[\d,]+\n {2}messages {8}[\d,]+\n/);
    expect(report.stdout).toMatch(/ {2}object storage {2}\d+(\.\d)? (B|KB|MB|GB)\n/);
    expect(report.stdout).toMatch(/ {2}would delete {4}[\d,]+ idle sessions?\n/);
    expect(report.stdout).toMatch(/largest sessions\n +\d+(\.\d)? (B|KB|MB) {2}agent:main:/);
    expect(report.stdout).toMatch(
      /index database \(D1\), per shard\n {2}SHARD +SIZE\n {2}DB +\d+(\.\d)? (KB|MB)/,
    );
    // The default is the dry run; --json is the server's answer.
    const json = await cli(["maintenance", "--json"], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ mode: "dry-run", agents: expect.any(Array) });
    expect((await cli(["maintenance", "--dry-run", "--enforce"], { env })).code).toBe(2);
    const agent = await cli(["maintenance"]);
    expect(agent.code).toBe(3);
    expect(agent.stderr).toContain("operator");
    const help = await cli(["help", "maintenance"]);
    expect(help.stdout).toContain("switchboard maintenance --enforce");
  });
});

describe("switchboard cron (SPEC §22)", () => {
  it("adds a job from flags, lists and shows it, turns it off, runs it, shows its runs and removes it", async () => {
    const jobId = `cli-${uid()}`;
    const added = await cli([
      "cron",
      "add",
      "--id",
      jobId,
      "--cron",
      "0 9 * * 1-5",
      "--tz",
      "Europe/Berlin",
      "--message",
      "Summarize yesterday's deploys",
      "--silent",
    ]);
    expect(added.stderr).toBe("");
    expect(added.stdout).toMatch(
      new RegExp(`^added ${jobId}: 0 9 \\* \\* 1-5 \\(Europe/Berlin\\), next run \\d{4}-`),
    );
    const listed = await cli(["cron", "list"]);
    expect(listed.stdout).toMatch(/^JOB +SCHEDULE +TARGET +DELIVERY +NEXT RUN +LAST RUN/);
    expect(listed.stdout).toMatch(
      new RegExp(`${jobId} +0 9 \\* \\* 1-5 \\(Europe/Berlin\\) +isolated +none`),
    );
    const shown = await cli(["cron", "show", jobId]);
    expect(shown.stdout).toContain("payload:          turn: Summarize yesterday's deploys");
    expect((await cli(["cron", "disable", jobId])).stdout).toBe(`updated ${jobId}: off, next run —\n`);
    const ran = await cli(["cron", "run", jobId]);
    expect(ran.stdout).toMatch(new RegExp(`^started ${jobId}: run [0-9a-f-]{36}`));
    const runs = await cli(["cron", "runs", jobId, "--json"]);
    expect(JSON.parse(runs.stdout).runs).toHaveLength(1);
    expect((await cli(["cron", "remove", jobId])).stdout).toBe(`removed ${jobId}\n`);
    expect((await cli(["cron", "show", jobId])).code).not.toBe(0);
  });

  it("says what is missing, and the server's 400 names the field", async () => {
    const noSchedule = await cli(["cron", "add", "--message", "hi"]);
    expect(noSchedule.code).toBe(2);
    expect(noSchedule.stderr).toContain("a schedule is required");
    const tooOften = await cli(["cron", "add", "--every", "30s", "--message", "hi"]);
    expect(tooOften.code).toBe(1);
    expect(tooOften.stderr).toContain("schedule.everyMs");
  });
});

describe("switchboard secret (offline)", () => {
  it("prints the channel secret the Worker verifies inbound posts with, without a token", async () => {
    const printed = await cli(["secret", "channel", "Telegram"], {
      env: { SWITCHBOARD_TOKEN: "", SWITCHBOARD_SIGNING_KEY: SIGNING_KEY },
    });
    expect(printed).toMatchObject({ code: 0, stderr: "" });
    const secret = printed.stdout.trim();
    expect(secret).toBe(await channelSecret("telegram"));
    const u = uid();
    const body = inbound({ senderId: `cli${u}`, chatId: "c", messageId: `m-${u}` });
    expect((await postInbound("telegram", body, { secret })).status).toBe(202);
  });

  it("prints a webhook agent's secret, distinct from the channel's", async () => {
    const env = { SWITCHBOARD_TOKEN: "", SWITCHBOARD_SIGNING_KEY: SIGNING_KEY };
    const printed = await cli(["secret", "webhook", "hook-sync-rec", "--json"], { env });
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({ secret: await webhookAgentSecret("hook-sync-rec") });
  });

  it("prints the key outbound webhooks are signed with, for their receivers", async () => {
    const env = { SWITCHBOARD_TOKEN: "", SWITCHBOARD_SIGNING_KEY: SIGNING_KEY };
    const printed = await cli(["secret", "webhooks"], { env });
    expect(printed.code).toBe(0);
    expect(printed.stdout.trim()).toBe(await deriveKey(SIGNING_KEY, { use: "webhooks" }));
    expect(printed.stdout.trim()).not.toBe(await webhookAgentSecret("hook-sync-rec"));
  });

  it("says what to set when the signing key is missing, and names unknown kinds", async () => {
    const missing = await cli(["secret", "channel", "telegram"], { env: { SWITCHBOARD_TOKEN: "" } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("set SWITCHBOARD_SIGNING_KEY");
    const unknown = await cli(["secret", "grant", "x"], {
      env: { SWITCHBOARD_TOKEN: "", SWITCHBOARD_SIGNING_KEY: SIGNING_KEY },
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown secret kind "grant"');
  });

  it("subagents wait parks until the run ends and prints the reason; cancel says a finished run is finished", async () => {
    const key = `agent:main:cli-sub-${uid()}`;
    await createSession({ agentId: "main", key });
    const asKey = { env: { SWITCHBOARD_SESSION: key } };
    const spawned = await cli(
      ["spawn", "Check the numbers", "--agent", "research", "--no-follow", "--json"],
      asKey,
    );
    const { runId } = JSON.parse(spawned.stdout) as { runId: string };
    const waited = await cli(["subagents", "wait", runId, "--timeout", "20"], asKey);
    expect(waited.code).toBe(0);
    expect(waited.stdout.split("\n")[0]).toBe("completed");
    expect(waited.stdout).toMatch(new RegExp(`${runId}\\s+done\\s+(pending|delivered)\\s+Check the numbers`));
    const cancelled = await cli(["subagents", "cancel", runId], asKey);
    expect(cancelled).toMatchObject({
      code: 0,
      stdout: "Check the numbers: already finished, nothing to cancel.\n",
    });
    expect((await cli(["subagents", "wait"], asKey)).stderr).toContain("<runId> required");
  });

  it("spawn --collect returns at once and agents-wait collects the result by run id", async () => {
    const key = `agent:main:cli-collect-${uid()}`;
    await createSession({ agentId: "main", key });
    const asKey = { env: { SWITCHBOARD_SESSION: key } };
    const spawned = await cli(
      ["spawn", "Check the numbers", "--agent", "research", "--collect", "--group", "cli"],
      asKey,
    );
    expect(spawned.code, spawned.stderr).toBe(0);
    const runId = /\(run ([0-9a-f-]+)\)/.exec(spawned.stdout)?.[1] ?? "";
    expect(runId).not.toBe("");
    expect(spawned.stderr).toBe(`collect it with: switchboard agents-wait ${runId}\n`);
    const waited = await cli(["agents-wait", runId, "--timeout", "20"], asKey);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(new RegExp(`${runId}\\s+done\\s+\\S+`));
    const foreign = await cli(["agents-wait", "no-such-run", "--timeout", "0"], asKey);
    expect(foreign.code).toBe(1);
    expect(foreign.stdout).toContain("no-such-run: not_found");
    expect((await cli(["agents-wait"], asKey)).stderr).toContain("<runId> required");
    const badSchema = await cli(["spawn", "x", "--collect", "--group", "g", "--schema", "[1]"], asKey);
    expect([badSchema.code, badSchema.stderr]).toEqual([
      2,
      expect.stringContaining("--schema must be a JSON Schema object"),
    ]);
  });
});
