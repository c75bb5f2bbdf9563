// The "Live streams" section of docs/benchmarks.md (issue 12): its own method, the baselines of its Worker
// process and one row per target. Between markers, so `BENCH_ONLY=streams` can rewrite it alone.
import { THINK_MS } from "./model-server.mjs";
import { writeSection } from "./sections.mjs";

const START = "<!-- live-streams -->";
const END = "<!-- /live-streams -->";
const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : "–");

/** The section's markdown, markers included; empty when the run has no stream rows. */
export function streamsSection(results, run) {
  const rows = results.filter((row) => row.stream);
  const failed = results.filter((row) => row.failed && row.name.startsWith("live stream"));
  if (rows.length === 0 && failed.length === 0) return "";
  const baselines = results
    .filter((row) => row.phase === 3 && row.baseline)
    .map(
      (row) =>
        `${row.name.replace("baseline: ", "").replace(" (streams run)", "")} ${ms(row.timing.p50.median)} ms`,
    )
    .join("; ");
  const table = rows
    .map((row) => `| ${row.name} | ${row.target} | ${row.met ? "met" : "**missed**"} | ${row.figure} |`)
    .join("\n");
  return `${START}
## Live streams (issue 12)

Run of ${run.date}, scale \`${run.scale}\`. A Worker process of its own (fresh state), whose configuration adds
\`streamer\`, an \`openai\` agent on a stand-in model (scripts/bench/model-server.mjs: a Node server on
loopback that streams Chat Completions chunks, its first piece of text after ${THINK_MS} ms, then 5 more
5 ms apart). Streams are read by scripts/bench/sse-client.mjs, which times each event by when its bytes
arrived. The four figures:
**event delay**: a live \`GET /v1/sessions/{key}/events\` stays open while ${run.streamSamples} single messages are imported one
at a time (\`POST /v1/sessions/{key}/transcript\`); the delay runs from the event's \`occurredAt\` (the
object's clock when it wrote the row; same machine) to its \`message\` event at the client. Before each
sample, its floors: a bare DO ping round trip and a bare durable write's round trip (\`GET
/bench/write/:key\`, one \`storage.put\`, answered once committed).
**100 streams**: turns against \`instant\` (\`POST …/messages\`, then \`POST /v1/runs/{id}/wait\`) in 4
blocks (none, 100 streams open, 100 open, none; opening them is not timed), and the CPU time the runtime
workerd, the server process (Node: Miniflare), and this client used per turn (/proc); every stream must see
every turn's \`run_completed\`.
**first delta**: \`POST …/messages {stream: true}\` to \`streamer\` (2 warm-up replies first); the client's
request → first \`delta\` event vs the model server's request arrival → first chunk written, split on
the shared wall clock into "request → model called" and "model's first chunk → delta at the client".
**memory**: ${run.churnCycles} connects of \`GET …/events?after=0\` (4 at a time), each reading its first bytes and then
disconnecting, after 100 warm-up cycles; workerd's VmRSS 1 s before and after them (the target's figure),
then 20 s later (past the 15 s keep-alive, by which the object has let every disconnected reader go), and
after a second round and the same pause. The event delay's target takes the DO ping as its floor.
Baselines of this process (p50): ${baselines || "–"}.

| scenario | target | | figure |
| --- | --- | --- | --- |
${table}
${failed.map((row) => `\n- **Failed**: ${row.name}: ${row.failed}`).join("")}
${END}`;
}

/** Replaces the section in docs/benchmarks.md (before the notes marker when it has none yet). */
export function writeStreamsSection(results, run) {
  writeSection(START, END, streamsSection(results, run));
}
