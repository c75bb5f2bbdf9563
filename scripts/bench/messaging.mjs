// Scenarios 3–5: sessions_send fire-and-forget (throughput, delivery latency), send-and-wait against the
// scripted research agent (and until its ping-pong and announce finish), sessions_spawn → completion.
import { api, ok, tool } from "./api.mjs";
import { measure, sample } from "./measure.mjs";
import { ADMIN, TOKENS } from "./server.mjs";

let fresh = 0;
/** A new session to send to (research's by default), so one sample never queues behind another's runs. */
export async function newTarget(base, agent = "research", name = "target") {
  const key = `agent:${agent}:api:${name}-${fresh++}`;
  const created = await api(base, "POST", "/v1/sessions", ADMIN, { key });
  if (created.status !== 201) throw new Error(`create ${key}: ${created.status}`);
  return key;
}

/** Polls a session's history until `found(messages)`; resolves to the time it was seen. */
async function seen(base, sessionKey, found, timeoutMs = 20_000) {
  const end = performance.now() + timeoutMs;
  while (performance.now() < end) {
    const page = await tool(base, TOKENS.main, "sessions_history", {
      sessionKey,
      limit: 50,
      includeTools: true,
    });
    if (found(page.messages ?? [])) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`timed out waiting on ${sessionKey}`);
}

const text = (message) =>
  typeof message.content === "string" ? message.content : JSON.stringify(message.content);
const send = (base, sessionKey, message, timeoutSeconds) =>
  tool(base, TOKENS.main, "sessions_send", { sessionKey, message, timeoutSeconds });

/**
 * Fire-and-forget delivery latency, one send at a time into an idle session: from the moment the client
 * has the `accepted` answer to the `timestamp` the target object gave the row when it wrote it (the same
 * machine's wall clock), so the polling that finds the row adds nothing to the figure.
 */
export async function deliveryScenario(base, samples) {
  const delivery = await sample(async (i) => {
    const target = await newTarget(base);
    const marker = `delivery probe ${i}`;
    const sent = await send(base, target, marker, 0);
    const acceptedAt = Date.now();
    if (sent.status !== "accepted") throw new Error(`send: ${JSON.stringify(sent)}`);
    let row;
    await seen(base, target, (messages) => {
      row = messages.find((m) => text(m).includes(marker));
      return row !== undefined;
    });
    return row.timestamp - acceptedAt;
  }, samples);
  return [{ name: "sessions_send delivery (accepted → row written in target)", timing: delivery }];
}

/** One fire-and-forget `sessions_send` as main to `sessionKey`: the request of every fire-and-forget load. */
export const fireAndForgetSend = (base, sessionKey, worker, i) =>
  fetch(`${base}/v1/tools/sessions_send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${TOKENS.main}` },
    body: JSON.stringify({ sessionKey, message: `load ${worker}-${i}`, timeoutSeconds: 0 }),
  });

/**
 * Fire-and-forget throughput at 1 and `concurrency` (one target per worker), next to a bare Queue send
 * and the floor. First the accept path alone: sends to `accept-only-*` targets, which the bench Worker's
 * consumer takes off the Queue without delivering (worker.ts), so no run follows them. Then the real
 * thing, run last: every accepted send leaves a run, its ping-pong turns and an announce behind, which
 * share the one local workerd with the sends that follow.
 */
export async function sendLoadScenario(base, options) {
  const targetsOf = async (name) => {
    const keys = [];
    for (let i = 0; i < options.concurrency; i++) keys.push(await newTarget(base, "research", name));
    return keys;
  };
  const acceptOnly = await targetsOf("accept-only");
  const delivered = await targetsOf("target");
  const fireAndForget = (targets) => (worker, i) => ok(fireAndForgetSend(base, targets[worker], worker, i));
  const queue = () => ok(fetch(`${base}/bench/queue`));
  const floor = () => ok(fetch(`${base}/bench/accept-floor`));
  const single = { ...options, concurrency: 1 };
  const c = options.concurrency;
  return [
    { name: "baseline: bare Queue send", timing: await measure(queue, single) },
    { name: `baseline: bare Queue send c=${c}`, timing: await measure(queue, options) },
    { name: `baseline: D1 key read + Queue send c=${c}`, timing: await measure(floor, options) },
    {
      name: "sessions_send fire-and-forget, accept path only",
      timing: await measure(fireAndForget(acceptOnly), single),
    },
    {
      name: `sessions_send fire-and-forget c=${c}, accept path only`,
      timing: await measure(fireAndForget(acceptOnly), options),
    },
    { name: "sessions_send fire-and-forget", timing: await measure(fireAndForget(delivered), single) },
    {
      name: `sessions_send fire-and-forget c=${c}`,
      timing: await measure(fireAndForget(delivered), options),
    },
  ];
}

/**
 * Send-and-wait round trip against the instant agent (server.mjs); then, against research, until its
 * ping-pong turns and the announce are done.
 */
export async function waitScenario(base, samples) {
  const roundTrip = await sample(async (i) => {
    const target = await newTarget(base, "instant");
    const t0 = performance.now();
    const sent = await send(base, target, `wait probe ${i}`, 15);
    if (sent.status !== "ok") throw new Error(`send and wait: ${JSON.stringify(sent)}`);
    return performance.now() - t0;
  }, samples);
  const fullLoop = await sample(
    async (i) => {
      const target = await newTarget(base);
      const t0 = performance.now();
      await send(base, target, `loop probe ${i}`, 15);
      return (
        (await seen(base, target, (messages) =>
          messages.some((m) => text(m).includes("Research wrapped up")),
        )) - t0
      );
    },
    Math.max(3, Math.floor(samples / 3)),
  );
  return [
    { name: "sessions_send wait (instant scripted agent, exchange ends)", timing: roundTrip },
    { name: "sessions_send wait + 2 ping-pong turns + announce", timing: fullLoop },
  ];
}

/** sessions_spawn of a research sub-agent → the completion message in the requester's transcript. */
export async function spawnScenario(base, samples) {
  const timing = await sample(async (i) => {
    const t0 = performance.now();
    const spawned = await tool(base, TOKENS.main, "sessions_spawn", {
      task: `spawn probe ${i}`,
      agentId: "research",
    });
    const runId = spawned.runId;
    if (!runId) throw new Error(`spawn: ${JSON.stringify(spawned)}`);
    const done = await seen(base, "agent:main:main", (messages) =>
      messages.some((m) => text(m).includes("[Sub-agent completion]") && text(m).includes(runId)),
    );
    return done - t0;
  }, samples);
  return [{ name: "sessions_spawn → completion in requester", timing }];
}
