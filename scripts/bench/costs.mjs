// What one operation costs the platform, for docs/scaling.md: on a Worker started with counting on
// (counting.ts), each operation runs `times` times; once the counts stop moving (its deferred work — queue
// consumers, runs, outbox writes, completions — has finished), they are divided by `times`.
import { api, tool } from "./api.mjs";
import { historyKey } from "./history.mjs";
import { newTarget } from "./messaging.mjs";
import { ADMIN, TOKENS } from "./server.mjs";

const counts = async (base, reset = false) =>
  (await fetch(`${base}/bench/counts${reset ? "?reset=1" : ""}`)).json();

/** Waits until the counts have not changed for `quietMs`; resolves to them. */
async function settled(base, quietMs = 1500, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  let last = JSON.stringify(await counts(base));
  let stableSince = Date.now();
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = JSON.stringify(await counts(base));
    if (now !== last) [last, stableSince] = [now, Date.now()];
    else if (Date.now() - stableSince >= quietMs) return JSON.parse(now);
  }
  throw new Error("the counts never settled");
}

/** Fresh `instant` sessions, one per run of an operation (none queues behind another's turns). */
const freshTargets = async (base, times) => ({
  keys: await Promise.all(Array.from({ length: times }, () => newTarget(base, "instant", "cost"))),
});

/** sessions_send to a fresh `instant` session, with `timeoutSeconds`, which must answer `status`. */
const sendOperation = (name, timeoutSeconds, status) => ({
  name,
  prepare: freshTargets,
  run: async (base, i, { keys }) => {
    const sent = await tool(base, TOKENS.main, "sessions_send", {
      sessionKey: keys[i],
      message: `cost probe ${i}`,
      timeoutSeconds,
    });
    if (sent.status !== status) throw new Error(`send: ${JSON.stringify(sent)}`);
  },
});

/**
 * The operations, each `run(i)` one of them; `prepare` (uncounted) makes what it needs. A message's whole
 * life is counted: a send until the exchange has ended, a spawn until its completion is in the requester.
 */
const OPERATIONS = [
  {
    name: "sessions_list (limit 50)",
    run: (base) => tool(base, TOKENS.main, "sessions_list", { limit: 50 }),
  },
  {
    name: "sessions_history (limit 200)",
    prepare: async () => ({ key: historyKey(1_000) }),
    run: (base, _, { key }) => tool(base, TOKENS.main, "sessions_history", { sessionKey: key, limit: 200 }),
  },
  {
    name: "session_status",
    prepare: async () => ({ key: historyKey(1_000) }),
    run: (base, _, { key }) => tool(base, TOKENS.main, "session_status", { sessionKey: key }),
  },
  {
    name: "chat message + the agent's run (POST …/messages, wait for the reply)",
    prepare: freshTargets,
    run: async (base, i, { keys }) => {
      const sent = await api(base, "POST", `/v1/sessions/${encodeURIComponent(keys[i])}/messages`, ADMIN, {
        text: `cost probe ${i}`,
      });
      if (sent.status !== 202 && sent.status !== 200) throw new Error(`message: ${sent.status}`);
      const wait = await api(base, "POST", `/v1/runs/${sent.json.runId}/wait`, ADMIN, {
        timeoutMs: 15_000,
        // Named, as the client and CLI name it: the run is found without reading the index (SPEC §24).
        sessionKey: keys[i],
      });
      if (wait.status !== 200) throw new Error(`wait: ${wait.status}`);
    },
  },
  sendOperation("sessions_send fire-and-forget (delivered, answered, exchange ended)", 0, "accepted"),
  sendOperation("sessions_send with a wait (answered, exchange ended)", 15, "ok"),
  {
    name: "sessions_spawn → completion in the requester",
    run: async (base, i) => {
      const spawned = await tool(base, TOKENS.main, "sessions_spawn", {
        task: `cost probe ${i}`,
        agentId: "research",
      });
      if (!spawned.runId) throw new Error(`spawn: ${JSON.stringify(spawned)}`);
    },
  },
];

/**
 * Each operation's platform calls per operation: rows of { name, perOp: Counts & { cpuMs }, times }.
 * `cpuMs()` is the CPU the runtime's process has used so far (ms): an operation's share is an upper
 * bound of its Workers CPU time (the local D1, the queues and the count polls run in that process too).
 */
export async function costsScenario(base, times, log, cpuMs = () => 0) {
  const rows = [];
  for (const operation of OPERATIONS) {
    const context = (await operation.prepare?.(base, times)) ?? {};
    await settled(base);
    await counts(base, true);
    const cpu0 = cpuMs();
    for (let i = 0; i < times; i++) await operation.run(base, i, context);
    const total = { ...(await settled(base)), cpuMs: cpuMs() - cpu0 };
    const perOp = Object.fromEntries(Object.entries(total).map(([key, value]) => [key, value / times]));
    log?.(`costs: ${operation.name}: ${JSON.stringify(perOp)}`);
    rows.push({ name: `costs: ${operation.name}`, cost: true, perOp, times });
  }
  return rows;
}
