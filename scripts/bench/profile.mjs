#!/usr/bin/env node
// CPU-profiles the local Worker under one load scenario, to see where the time goes:
//
//   npm run bench:profile -- <history200|status|sendwait|fireforget|acceptonly|list|healthz|fanout> [seconds=5]
//
// Starts the bench's server (server.mjs: the Worker plus its /bench routes) with workerd's inspector on
// a free port, seeds what the scenario needs, warms up, then samples the Worker's isolate through the
// Chrome DevTools Protocol while the load runs. Writes .wrangler/profiles/<scenario>.cpuprofile (open it
// in Chrome DevTools or speedscope) and prints the time split and the top functions by self and by
// inclusive time, mapped back to src/ through the bundle's source map. PROFILE_ALSO=d1:db[,queues:queue,…]
// also profiles those miniflare services (they run as separate workers in the same workerd; their targets
// are listed at start).
//
// The CDP client and target discovery are in profile-cdp.mjs; the analysis and report in profile-report.mjs.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { api, ok } from "./api.mjs";
import { waitForIndex } from "./list.mjs";
import { fireAndForgetSend, newTarget } from "./messaging.mjs";
import { proxyTargets, runtimeTargets, startProfiler, stopProfiler } from "./profile-cdp.mjs";
import { analyse, report, sourceLocator } from "./profile-report.mjs";
import { createSessions, importTranscript } from "./seed.mjs";
import { ADMIN, freePort, migrate, startWorker, TOKENS } from "./server.mjs";
import { openStream } from "./sse-client.mjs";

const STATE_DIR = ".wrangler/profile-state";
const OUT_DIR = ".wrangler/profiles";
const DRAIN_SECONDS = 4; // fireforget: keep sampling while queued deliveries and session runs drain

const post = (base, path, token, body) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

/** Each scenario: seeding (not profiled), concurrency, and one request (false/throw = failure). */
/** Fire-and-forget sends at concurrency 8, each worker to a `research` session of its own named `name`-n. */
const fireAndForgetLoad = (name) => ({
  concurrency: 8,
  async setup(base, ctx) {
    ctx.targets = [];
    for (let i = 0; i < 8; i++) ctx.targets.push(await newTarget(base, "research", name));
  },
  request: (base, ctx, worker, i) => ok(fireAndForgetSend(base, ctx.targets[worker], worker, i)),
});

const SCENARIOS = {
  history200: {
    concurrency: 1,
    async setup(base) {
      await importTranscript(base, "agent:main:api:history-1000", 1000);
    },
    request: (base) =>
      ok(
        post(base, "/v1/tools/sessions_history", TOKENS.main, {
          sessionKey: "agent:main:api:history-1000",
          limit: 200,
        }),
      ),
  },
  sendwait: {
    concurrency: 1,
    // Each iteration creates its target, then waits on the instant agent's reply (the bench's round trip).
    request: async (base) => {
      const sessionKey = await newTarget(base, "instant", "profile");
      const sent = await api(base, "POST", "/v1/tools/sessions_send", TOKENS.main, {
        sessionKey,
        message: "profile probe",
        timeoutSeconds: 15,
      });
      return sent.status === 200 && sent.json?.status === "ok";
    },
  },
  fireforget: {
    ...fireAndForgetLoad("profile"),
    drainSeconds: DRAIN_SECONDS,
    // Warm-up at concurrency 1 only, so the profiled run starts with (almost) no backlog.
    warmupConcurrency: 1,
  },
  // fireforget's accept path alone: the bench Worker's consumer takes these sends off the Queue undelivered.
  acceptonly: fireAndForgetLoad("accept-only"),
  list: {
    concurrency: 1,
    async setup(base) {
      await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
      await createSessions(base, 199);
      await waitForIndex(base, 200);
    },
    request: (base) => ok(post(base, "/v1/tools/sessions_list", TOKENS.main, { limit: 50 })),
  },
  // A tool call answered by one session object alone: the tool pipeline's own cost.
  status: {
    concurrency: 1,
    async setup(base) {
      await importTranscript(base, "agent:main:api:history-1000", 10);
    },
    request: (base) =>
      ok(post(base, "/v1/tools/session_status", TOKENS.main, { sessionKey: "agent:main:api:history-1000" })),
  },
  healthz: { concurrency: 1, request: (base) => ok(fetch(`${base}/healthz`)) },
  // One session with 100 live event streams open on it (streams.mjs), each turn fanned out to all of them.
  fanout: {
    concurrency: 1,
    async setup(base, ctx) {
      ctx.key = "agent:instant:api:profile-fanout";
      await api(base, "POST", "/v1/sessions", ADMIN, { key: ctx.key });
      const url = `${base}/v1/sessions/${encodeURIComponent(ctx.key)}/events`;
      ctx.streams = await Promise.all(Array.from({ length: 100 }, () => openStream(url, { token: ADMIN })));
    },
    request: async (base, ctx) => {
      const sent = await api(base, "POST", `/v1/sessions/${encodeURIComponent(ctx.key)}/messages`, ADMIN, {
        text: "profile probe",
      });
      if (sent.status !== 202) return false;
      const waited = await api(base, "POST", `/v1/runs/${sent.json.runId}/wait`, ADMIN, {
        timeoutMs: 15_000,
      });
      return waited.status === 200;
    },
  },
};

/** Closed loop for `ms`: `concurrency` workers, each sending its next request when the last answers. */
async function load(request, concurrency, ms) {
  const started = performance.now();
  const perSecond = [];
  let done = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() - started < ms; i++) {
        const good = await request(worker, i).then(
          (r) => r !== false,
          () => false,
        );
        if (!good) failures++;
        else {
          done++;
          const second = Math.floor((performance.now() - started) / 1000);
          perSecond[second] = (perSecond[second] ?? 0) + 1;
        }
      }
    }),
  );
  return { done, failures, seconds: (performance.now() - started) / 1000, perSecond };
}

async function main() {
  const [name, secondsArg = "5"] = process.argv.slice(2);
  const scenario = SCENARIOS[name];
  const seconds = Number(secondsArg);
  if (!scenario || !(seconds > 0)) {
    console.error(`usage: node scripts/bench/profile.mjs <${Object.keys(SCENARIOS).join("|")}> [seconds=5]`);
    process.exit(2);
  }
  rmSync(STATE_DIR, { recursive: true, force: true });
  migrate(STATE_DIR);
  const inspectorPort = await freePort();
  const worker = await startWorker(STATE_DIR, { inspectorPort });
  const { base } = worker;
  const ctx = {};
  try {
    const targets = await proxyTargets(inspectorPort);
    const runtime = await runtimeTargets(worker.pid);
    console.log(
      `Worker inspector targets: ${targets.map((t) => `${t.title} (${t.webSocketDebuggerUrl})`).join(", ")}`,
    );
    console.log(`workerd targets (PROFILE_ALSO): ${runtime.map((t) => t.id).join(", ")}`);
    await scenario.setup?.(base, ctx);
    const request = (worker, i) => scenario.request(base, ctx, worker, i);
    await load(request, scenario.warmupConcurrency ?? scenario.concurrency, 1000); // JIT warm-up

    const also = (process.env.PROFILE_ALSO ?? "").split(",").filter(Boolean);
    const extra = [];
    for (const id of also) {
      const target = runtime.find((t) => t.id === id);
      if (!target) throw new Error(`no workerd target ${id}`);
      extra.push({ id, session: await startProfiler(target.webSocketDebuggerUrl) });
    }
    const session = await startProfiler(targets[0].webSocketDebuggerUrl);
    const result = await load(request, scenario.concurrency, seconds * 1000);
    if (scenario.drainSeconds) await new Promise((r) => setTimeout(r, scenario.drainSeconds * 1000));
    const profile = await stopProfiler(session);

    const where = sourceLocator();
    mkdirSync(OUT_DIR, { recursive: true });
    const file = `${OUT_DIR}/${name}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(
      `\n${name}: ${result.done} requests in ${result.seconds.toFixed(1)} s = ${(result.done / result.seconds).toFixed(1)} req/s` +
        ` (concurrency ${scenario.concurrency}, ${result.failures} failures)${scenario.drainSeconds ? `, then ${scenario.drainSeconds} s of drain` : ""}`,
    );
    const whole = Math.floor(result.seconds); // the last, partial second is left out
    console.log(
      `  requests per second of the run: ${Array.from({ length: whole }, (_, i) => result.perSecond[i] ?? 0).join(" ")}`,
    );
    console.log(`  profile: ${file} (${profile.samples.length} samples)`);
    report(`${targets[0].title} (the Worker's isolate)`, analyse(profile, where));
    for (const { id, session: extraSession } of extra) {
      const p = await stopProfiler(extraSession);
      const extraFile = `${OUT_DIR}/${name}.${id.replaceAll(":", "_")}.cpuprofile`;
      writeFileSync(extraFile, JSON.stringify(p));
      report(`${id} (${extraFile})`, analyse(p, where));
    }
  } finally {
    await worker.stop();
  }
}

main().catch((error) => {
  console.error(`profile failed: ${error.stack ?? error.message}`);
  process.exit(1);
});
