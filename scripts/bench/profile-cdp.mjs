// The Chrome DevTools Protocol side of scripts/bench/profile.mjs: finds the inspector targets (workerd's
// inspector lists the user Worker and every other worker in the process) and starts and stops V8's
// sampling profiler on one over a WebSocket.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { HOST, workerdPid } from "./server.mjs";

// Also analyse's fallback sample period, for a profile too sparse to measure it from.
export const SAMPLING_US = Number(process.env.PROFILE_INTERVAL_US ?? 100);

/** A minimal CDP client over the global WebSocket. */
async function cdp(url) {
  // A local Origin, as inspector proxies expect of a non-browser client (a browser-CSRF guard).
  const ws = new WebSocket(url, { headers: { Origin: `http://${HOST}` } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  const pending = new Map();
  let nextId = 0;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const waiter = pending.get(message.id);
    if (!waiter) return; // events (console, scriptParsed) are not needed
    pending.delete(message.id);
    if (message.error) waiter.reject(new Error(`${waiter.method}: ${JSON.stringify(message.error)}`));
    else waiter.resolve(message.result);
  };
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject, method });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

export async function startProfiler(url) {
  const session = await cdp(url);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
  await session.send("Profiler.start");
  return session;
}

/** The finished profile (a .cpuprofile object); the session is closed. */
export async function stopProfiler(session) {
  const { profile } = await session.send("Profiler.stop");
  session.close();
  return profile;
}

/** The user Worker's target on workerd's inspector (the server's `inspectorPort`). */
export async function proxyTargets(inspectorPort) {
  const targets = await fetch(`http://${HOST}:${inspectorPort}/json`).then((r) => r.json());
  return targets.filter((target) => target.id === "core:user:switchboard");
}

/**
 * Every worker on workerd's inspector (D1, queues, …), found through the workerd's listening sockets in
 * /proc.
 */
export async function runtimeTargets(serverPid) {
  const pid = workerdPid(serverPid);
  if (!pid) return [];
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /socket:\[(\d+)\]/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {}
  }
  const ports = readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[3] === "0A" && inodes.has(f[9])) // 0A: LISTEN
    .map((f) => Number.parseInt(f[1].split(":")[1], 16));
  for (const port of ports) {
    const list = await fetch(`http://${HOST}:${port}/json`)
      .then((r) => r.json())
      .catch(() => undefined);
    if (Array.isArray(list) && list[0]?.webSocketDebuggerUrl) return list;
  }
  return [];
}
