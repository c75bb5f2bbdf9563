#!/usr/bin/env node
// `npm run lint` (after Biome): the rooms of src/session/ keep their floor order (README, "Inside the
// session object"; src/session/README.md). Reads the imports of src/**/*.ts(x) — `import`, `import type`,
// `export … from`, `import("…")` — and fails, naming each offending import, on
//   (a) an import cycle between files of src/ (type-only imports included),
//   (b) a room of src/session/ importing a room on its own floor or above (ROOMS, bottom to top),
//   (c) a module outside src/session/ importing anything of it but its public face: `session/api`
//       (api/index.ts) and `session/client.ts`; the Worker's entry (src/index.ts) also exports the class,
//   (d) `await`, `async` or `env` in the rooms that run inside the caller's transaction (SYNC_ROOMS).
// src/ is the Worker: the packages/ beside it (client, CLI) are kept apart by test/client/boundaries.test.ts,
// and Biome's noImportCycles looks for cycles in them.
// `node scripts/check-rooms.mjs --graph` prints which room imports which, with counts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(import.meta.dirname, "..");
const SRC = path.join(ROOT, "src");
const SESSION = path.join(SRC, "session");

/**
 * The floors of src/session/, bottom to top: a room (a folder, or a file at the top of src/session/)
 * imports only rooms on floors below its own. Rooms sharing a floor do not import each other.
 */
const ROOMS = [
  ["alarm.ts", "run-waiters.ts", "config.ts"], // the clock, in-memory waiters, the configuration
  ["record"], // the session row and how it is shown
  ["schema"], // migrations
  ["api"], // the public face (types, schemas)
  ["client.ts"], // the public face (the stub and its resilient calls)
  ["store"], // one module per table
  ["transcript"], // messages, safe copies, attachments, search progress
  ["writes"], // what each change writes in one transaction
  ["collectors"], // the requester's side of collectors
  ["outbox"], // delivering what is owed
  ["runs"], // executing runs, the turn and run RPCs
  ["live"], // events, watch, streams
  ["ledger"], // the delivery ledger's RPC face and operator actions
  ["session-object.ts"], // the Durable Object
];

/** The rooms whose code runs inside the caller's transaction: they never await and never read `env`. */
const SYNC_ROOMS = new Set(["record", "schema", "api", "store", "transcript", "writes"]);

/** What code outside src/session/ may import of it. */
const PUBLIC = new Set([path.join(SESSION, "api", "index.ts"), path.join(SESSION, "client.ts")]);
const ENTRY = { from: path.join(SRC, "index.ts"), to: path.join(SESSION, "session-object.ts") };

const IMPORT =
  /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^;"'`]*?\sfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) sourceFiles(file, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(file);
  }
  return out;
}

function resolveImport(from, spec) {
  if (!spec.startsWith(".")) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [`${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")];
  for (const file of [base, ...candidates]) if (existsSync(file) && statSync(file).isFile()) return file;
  return undefined;
}

/** file → [{ file, spec }] of the files of src/ it imports. */
const graph = new Map();
/** file → its text, for SYNC_ROOMS. */
const texts = new Map();
for (const file of sourceFiles(SRC)) {
  const text = readFileSync(file, "utf8");
  texts.set(file, text);
  const imports = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    const target = resolveImport(file, spec);
    if (target?.startsWith(SRC + path.sep)) imports.push({ file: target, spec });
  }
  graph.set(file, imports);
}

const rel = (file) => path.relative(ROOT, file);
const problems = [];

// (a) cycles: the strongly connected components (Tarjan), each shown as one concrete cycle.
{
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const { file: next } of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file), low.get(next)));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), index.get(next)));
    }
    if (low.get(file) === index.get(file)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfLoop = (graph.get(file) ?? []).some((edge) => edge.file === file);
      if (component.length > 1 || selfLoop) components.push(new Set(component));
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  for (const component of components) {
    // A path back to the start through the component (breadth-first, so the shortest).
    const [start] = component;
    const previous = new Map([[start, undefined]]);
    const queue = [start];
    let last;
    while (queue.length > 0 && last === undefined) {
      const file = queue.shift();
      for (const { file: next } of graph.get(file) ?? []) {
        if (next === start) {
          last = file;
          break;
        }
        if (component.has(next) && !previous.has(next)) {
          previous.set(next, file);
          queue.push(next);
        }
      }
    }
    const cycle = [start];
    for (let file = last; file !== start; file = previous.get(file)) cycle.splice(1, 0, file);
    problems.push(`import cycle: ${[...cycle, start].map(rel).join(" → ")}`);
  }
}

// (b) the floor order of src/session/, and (c) its public face.
const roomOf = (file) => path.relative(SESSION, file).split(path.sep)[0];
const floorOf = (room) => ROOMS.findIndex((floor) => floor.includes(room));
const inSession = (file) => file.startsWith(SESSION + path.sep);
const roomEdges = new Map();
for (const [file, imports] of graph) {
  for (const { file: target, spec } of imports) {
    const where = `${rel(file)} imports "${spec}"`;
    if (inSession(file) && inSession(target)) {
      const from = roomOf(file);
      const to = roomOf(target);
      if (from === to) continue;
      const key = `${from} → ${to}`;
      roomEdges.set(key, (roomEdges.get(key) ?? 0) + 1);
      for (const room of [from, to])
        if (floorOf(room) < 0) problems.push(`${where}: src/session/${room} is in no floor of ROOMS`);
      if (floorOf(from) >= 0 && floorOf(to) >= floorOf(from))
        problems.push(`${where}: ${from} may import only rooms below it, and ${to} is not`);
    } else if (!inSession(file) && inSession(target)) {
      if (PUBLIC.has(target) || (file === ENTRY.from && target === ENTRY.to)) continue;
      problems.push(`${where}: outside src/session/, import only session/api or session/client`);
    }
  }
}

// (d) the rooms inside the transaction: no await, no env (comments and strings aside, roughly).
for (const [file, text] of texts) {
  if (!inSession(file) || !SYNC_ROOMS.has(roomOf(file))) continue;
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "")
    .replace(/`(?:[^`\\]|\\.)*`|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');
  const found = code.match(/\b(await|async|env|Env)\b/);
  if (found)
    problems.push(`${rel(file)} uses \`${found[1]}\`: ${roomOf(file)}/ runs inside the caller's transaction`);
}

if (process.argv.includes("--graph")) {
  const order = ROOMS.flat();
  const sorted = [...roomEdges].sort(([a], [b]) => {
    const [fa, ta] = a.split(" → ");
    const [fb, tb] = b.split(" → ");
    return order.indexOf(fa) - order.indexOf(fb) || order.indexOf(ta) - order.indexOf(tb);
  });
  for (const [edge, count] of sorted) console.log(`${edge} (${count})`);
}

const uniqueProblems = [...new Set(problems)];
if (uniqueProblems.length > 0) {
  for (const problem of uniqueProblems) console.error(`check-rooms: ${problem}`);
  process.exit(1);
}
console.log(`check-rooms: ${graph.size} files, no import cycle, src/session/ rooms in order`);
