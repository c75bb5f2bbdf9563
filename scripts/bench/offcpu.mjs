#!/usr/bin/env node
// Where the runtime workerd's one thread spends a fire-and-forget load (issue 16), off the CPU as well as
// on it: `node scripts/bench/offcpu.mjs [accept-only|delivered] [seconds]`. A fresh Worker (startWorker)
// with 200 sessions; 8 clients send as agent:main:main to a research session each (`accept-only-*`
// sessions' sends are taken off the Queue undelivered by the bench Worker, so no run follows them), and a
// ninth reads /healthz every 50 ms. After 2 s of load, `perf stat` counts the process's syscalls and
// `perf sched record` follows its threads for the same window; each time the main thread is switched
// back in, the time it was away is filed under the kernel stack it left on: idle in epoll_wait, blocked
// on the disk (fsync, write-back), runnable but preempted, or other. Needs `perf` and tracepoints
// (root). Not part of `npm run bench`.
import { spawn, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { api } from "./api.mjs";
import { waitForIndex } from "./list.mjs";
import { fireAndForgetSend } from "./messaging.mjs";
import { createSessions } from "./seed.mjs";
import { ADMIN, migrate, startWorker, TOKENS, workerdPid } from "./server.mjs";

const mode = process.argv[2] === "delivered" ? "delivered" : "accept-only";
const seconds = Number(process.argv[3] ?? 3);
const STATE = ".wrangler/bench-state-offcpu";
const DATA = `${STATE}.perf.data`;

const run = (command) =>
  new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.once("exit", () => resolve(out));
  });

/** The main thread's time away from the CPU, by the kernel stack it left on (perf sched timehist -g). */
function offCpu(pid) {
  const text = spawnSync("perf", ["sched", "timehist", "-i", DATA, "-p", String(pid)], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  }).stdout;
  const away = {};
  let running = 0;
  let delay = 0;
  for (const line of text.split("\n")) {
    const match = /^\s*[\d.]+\s+\[\d+\]\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*(.*)$/.exec(line);
    if (!match || match[1] !== `workerd[${pid}]`) continue;
    const stack = match[5];
    const kind = /epoll_wait/.test(stack)
      ? "idle (epoll_wait)"
      : /fsync|fdatasync|flush|write_and_wait|sync_dirty|io_schedule|writeback/.test(stack)
        ? "blocked on the disk (fsync, write-back)"
        : /irqentry|exit_to_user_mode|preempt/.test(stack)
          ? "preempted (runnable)"
          : "other";
    away[kind] = (away[kind] ?? 0) + Number(match[2]);
    delay += Number(match[3]);
    running += Number(match[4]);
  }
  return { away, delay, running };
}

rmSync(STATE, { recursive: true, force: true });
migrate(STATE);
const worker = await startWorker(STATE);
const { base } = worker;
try {
  const pid = workerdPid(worker.pid);
  await api(base, "POST", "/v1/sessions", TOKENS.main, { key: "main", displayName: "Main" });
  await createSessions(base, 199);
  await waitForIndex(base, 200);
  const name = mode === "delivered" ? "offcpu" : "accept-only";
  const targets = [];
  for (let i = 0; i < 8; i++) {
    targets.push(`agent:research:api:${name}-${i}`);
    await api(base, "POST", "/v1/sessions", ADMIN, { key: targets[i] });
  }
  const sends = [];
  const healthz = [];
  const end = Date.now() + (seconds + 3) * 1000;
  const sender = async (worker) => {
    for (let i = 0; Date.now() < end; i++) {
      const t0 = performance.now();
      const response = await fireAndForgetSend(base, targets[worker], worker, i);
      await response.text();
      sends.push({ at: performance.now(), ms: performance.now() - t0 });
    }
  };
  const reader = async () => {
    while (Date.now() < end) {
      const t0 = performance.now();
      await (await fetch(`${base}/healthz`)).text();
      healthz.push({ at: performance.now(), ms: performance.now() - t0 });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const load = Promise.all([...targets.map((_, worker) => sender(worker)), reader()]);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const from = performance.now();
  const events = "fsync,fdatasync,pwrite64,pread64,epoll_wait".split(",");
  const [counts] = await Promise.all([
    run(
      `perf stat -x, ${events.map((e) => `-e syscalls:sys_enter_${e}`).join(" ")} -p ${pid} -- sleep ${seconds}`,
    ),
    run(`perf sched record -a -g -o ${DATA} -- sleep ${seconds}`),
  ]);
  const to = performance.now();
  await load;
  const inWindow = (rows) =>
    rows
      .filter((row) => row.at >= from && row.at <= to)
      .map((row) => row.ms)
      .sort((a, b) => a - b);
  const window = inWindow(sends);
  const reads = inWindow(healthz);
  const p50 = (values) => values[Math.floor(values.length / 2)]?.toFixed(1) ?? "–";
  console.log(
    `${mode}, ${((to - from) / 1000).toFixed(1)} s window: ${window.length} sends answered (p50 ${p50(window)} ms), /healthz p50 ${p50(reads)} ms`,
  );
  // Per answered send: the syscall rate over perf stat's `seconds`, divided by the send rate of the window.
  const sendRate = window.length / ((to - from) / 1000);
  for (const line of counts.split("\n").filter((row) => row.includes("syscalls:"))) {
    const [count, , event] = line.split(",");
    const per = sendRate ? (Number(count) / seconds / sendRate).toFixed(1) : "–";
    console.log(
      `  ${event.replace("syscalls:sys_enter_", "")}: ${count} in ${seconds} s (${per} per answered send)`,
    );
  }
  const { away, delay, running } = offCpu(pid);
  const total = running + delay + Object.values(away).reduce((sum, ms) => sum + ms, 0);
  const share = (ms) => `${ms.toFixed(0)} ms (${((ms / total) * 100).toFixed(0)}%)`;
  console.log(`  main thread: running ${share(running)}, runnable but not running ${share(delay)}; away:`);
  for (const [kind, ms] of Object.entries(away).sort((a, b) => b[1] - a[1]))
    console.log(`    ${kind}: ${share(ms)}`);
} finally {
  await worker.stop();
  rmSync(DATA, { force: true });
}
