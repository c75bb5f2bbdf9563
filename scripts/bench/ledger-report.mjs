// The "Completion delivery" section of docs/benchmarks.md (issue 14): its method and one row per target.
// Between markers, so `BENCH_ONLY=ledger` can rewrite it alone.
import { writeSection } from "./sections.mjs";
import { SWARM_CHILDREN } from "./server.mjs";

const START = "<!-- ledger -->";
const END = "<!-- /ledger -->";

/** The section's markdown, markers included; empty when the run has no ledger rows. */
export function ledgerSection(results, run) {
  const rows = results.filter((row) => row.ledger);
  const failed = results.filter((row) => row.failed && row.name.startsWith("ledger"));
  if (rows.length === 0 && failed.length === 0) return "";
  const table = rows
    .map((row) => `| ${row.name} | ${row.target} | ${row.met ? "met" : "**missed**"} | ${row.figure} |`)
    .join("\n");
  return `${START}
## Completion delivery (issue 14)

Run of ${run.date}, scale \`${run.scale}\`. A Worker process of its own (fresh state), whose configuration adds
\`swarm\` (scripts/bench/server.mjs), a scripted requester that keeps ${SWARM_CHILDREN} sub-agents live
(\`maxChildrenPerAgent\`, the service's default; \`instant\`'s default \`maxConcurrent\` of 8 lets them all
run) and answers each completion with \`ANNOUNCE_SKIP\`. ${SWARM_CHILDREN} client workers each call
\`sessions_spawn\` (\`agentId: "instant"\`, whose run ends at once with a one-line reply) as the operator
naming \`agent:swarm:main\`, then \`POST /v1/runs/{runId}/wait\` on the child's run, which answers its
\`endedAt\`, and spawn the next; a spawn refused at the limit (the child just ended still counts as live
until its index row says so) is retried after 10 ms. Once every child run has ended, the requester's
transcript (\`GET …/transcript.jsonl\`) is read every second until it stops growing; each completion
message (\`[Sub-agent completion]\`, SPEC §5.4) is counted by the \`runId\` its text names.
**Handoff**: the completion message's \`timestamp\` (the requester object's clock when it wrote the row)
minus the child run's \`endedAt\` (the child object's clock when it ended the run); one workerd, one clock.
**DO-to-DO RPC floor**: one session object calling another's bare RPC (\`GET /bench/ping-peer/:key/:peer\`
→ \`benchPingPeer\`: 50 sequential \`benchPing\` calls timed in the caller, whose clock moves in whole ms
and only across I/O, so one call is 1/50 of the total), on two objects of their own; 100 samples before the
load (idle), then one every 20 ms throughout it (the target's floor). Each sample also times the client's
round trip of \`GET /bench/ping/:key\` (the "DO ping" baseline of the other sections: client → Worker →
object), for reference. CPU per completion: what the runtime workerd, the server process (Node:
Miniflare), and this client used (/proc) while the children ran, divided by their number.

| scenario | target | | figure |
| --- | --- | --- | --- |
${table}
${failed.map((row) => `\n- **Failed**: ${row.name}: ${row.failed}`).join("")}
${END}`;
}

/** Replaces the section in docs/benchmarks.md (before the notes marker when it has none yet). */
export function writeLedgerSection(results, run) {
  writeSection(START, END, ledgerSection(results, run));
}
