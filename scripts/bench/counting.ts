// What each operation costs the platform (docs/scaling.md): with the var BENCH_COUNT=1 (the costs phase of
// the bench, never the timed ones), the bench's Worker and its objects see their bindings through these
// wrappers, which count D1 round trips, statements and rows, Durable Object calls and Queue messages.
// With the var BENCH_LATENCY (the latency phase: the model as JSON, from latency.mjs), the same wrappers also wait
// that long before each D1 round trip, Durable Object call and Queue send while the model is switched on
// (`setLatencyOn`, the bench route /bench/latency): a distant D1 primary and same-colo objects, on a
// local workerd where each is well under a millisecond. One module in one isolate (workerd runs a
// Worker's entry points and its objects' classes in the same one), so the counts add up, and the switch
// holds, across the Worker, the objects and the consumer.

export interface Counts {
  /** Requests into the Worker (the bench's own /bench routes not counted). */
  workerRequests: number;
  /** Queue consumer invocations (batches handed to the Worker's `queue`). */
  consumerBatches: number;
  /** D1 round trips: one per statement run alone, one per batch. */
  d1Calls: number;
  d1Statements: number;
  /** Statements that changed a row (D1's meta.changes > 0): the writes a database serializes. */
  d1Writes: number;
  d1RowsRead: number;
  d1RowsWritten: number;
  /** Calls into a Durable Object (RPC methods and fetch) through a namespace's stub. */
  doCalls: number;
  /** Alarms that ran in an object (each a billed Durable Object request, like a call). */
  doAlarms: number;
  queueMessages: number;
}

const zero = (): Counts => ({
  workerRequests: 0,
  consumerBatches: 0,
  d1Calls: 0,
  d1Statements: 0,
  d1Writes: 0,
  d1RowsRead: 0,
  d1RowsWritten: 0,
  doCalls: 0,
  doAlarms: 0,
  queueMessages: 0,
});
let counts = zero();

/** The production latency model: ms added before each D1 round trip, Durable Object call, Queue send. */
export interface Latency {
  d1: number;
  do: number;
  queue: number;
}
let model: Latency | undefined;
let modelOn = false;

/** Switches the latency model on or off (the bench times each operation both ways in one run). */
export function setLatencyOn(on: boolean): { on: boolean; model?: Latency } {
  modelOn = on && model !== undefined;
  return { on: modelOn, ...(model ? { model } : {}) };
}

/** Waits the model's delay for one call of `part`, if the model is on. */
function hop(part: keyof Latency): Promise<void> | undefined {
  const ms = modelOn ? (model?.[part] ?? 0) : 0;
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : undefined;
}

/** One alarm ran in an object (the bench's object classes call it from their `alarm`). */
export function countAlarm(): void {
  counts.doAlarms++;
}

/** One invocation of the Worker (worker.ts): a request, or a batch for the queue consumer. */
export function countInvocation(kind: "request" | "batch"): void {
  if (kind === "request") counts.workerRequests++;
  else counts.consumerBatches++;
}

/** The counts so far; with `reset`, starts again from zero. */
export function takeCounts(reset: boolean): Counts {
  const now = counts;
  if (reset) counts = zero();
  return now;
}

function countMeta(result: unknown): void {
  const meta = (result as { meta?: { rows_read?: number; rows_written?: number; changes?: number } })?.meta;
  if (!meta) return;
  counts.d1RowsRead += meta.rows_read ?? 0;
  counts.d1RowsWritten += meta.rows_written ?? 0;
  if ((meta.changes ?? 0) > 0) counts.d1Writes++;
}

// A wrapped statement → the real one, so batch() gets D1's own objects.
const realStatements = new WeakMap<object, D1PreparedStatement>();

function countedStatement(real: D1PreparedStatement): D1PreparedStatement {
  const wrapped = new Proxy(real, {
    get(target, prop) {
      if (prop === "bind") return (...values: unknown[]) => countedStatement(target.bind(...values));
      // first() answers without D1's meta: it runs as all() here (the service never asks first() for a
      // column), so its rows read are counted too.
      if (prop === "first")
        return async () => {
          counts.d1Calls++;
          counts.d1Statements++;
          await hop("d1");
          const result = await target.all();
          countMeta(result);
          return result.results[0] ?? null;
        };
      if (prop === "all" || prop === "run" || prop === "raw")
        return async (...args: unknown[]) => {
          counts.d1Calls++;
          counts.d1Statements++;
          await hop("d1");
          const result = await Reflect.apply(
            target[prop] as (...a: unknown[]) => Promise<unknown>,
            target,
            args,
          );
          countMeta(result);
          return result;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  realStatements.set(wrapped, real);
  return wrapped;
}

/** A database, or one of its D1 Sessions API sessions (`withSession`: the same prepare and batch). */
type Database = Pick<D1Database, "prepare" | "batch">;

function countedDatabase<T extends Database>(db: T): T {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => countedStatement(target.prepare(sql));
      // Reads through a session (read replicas) are counted and delayed like the database's own.
      if (prop === "withSession")
        return (...args: unknown[]) =>
          countedDatabase(
            Reflect.apply(Reflect.get(target, prop) as (...a: unknown[]) => Database, target, args),
          );
      if (prop === "batch")
        return async (statements: D1PreparedStatement[]) => {
          counts.d1Calls++;
          counts.d1Statements += statements.length;
          await hop("d1");
          const results = await target.batch(statements.map((s) => realStatements.get(s) ?? s));
          for (const result of results) countMeta(result);
          return results;
        };
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function countedStub<T extends object>(stub: T): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        counts.doCalls++;
        // Reflect.apply: an RPC method stub would take `.apply` for a remote method of that name.
        const call = () => Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        // Delayed, the call is a plain promise of its result (no pipelining on it; the service uses none).
        const delay = hop("do");
        return delay ? delay.then(call) : call();
      };
    },
  });
}

function countedNamespace(namespace: DurableObjectNamespace): DurableObjectNamespace {
  return new Proxy(namespace, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "get" || prop === "getByName")
        return (...args: unknown[]) =>
          countedStub(Reflect.apply(value as (...a: unknown[]) => object, target, args));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function countedQueue(queue: Queue): Queue {
  return new Proxy(queue, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "send")
        return async (...args: unknown[]) => {
          counts.queueMessages++;
          await hop("queue");
          return Reflect.apply(value as (...a: unknown[]) => Promise<void>, target, args);
        };
      if (prop === "sendBatch")
        return async (messages: unknown[], ...rest: unknown[]) => {
          counts.queueMessages += messages.length;
          await hop("queue");
          return Reflect.apply(value as (...a: unknown[]) => Promise<void>, target, [messages, ...rest]);
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const has = (value: unknown, ...names: string[]) =>
  typeof value === "object" && value !== null && names.every((name) => name in value);

/**
 * `env` with every D1 database, Durable Object namespace and queue binding counted, if BENCH_COUNT=1, and
 * delayed by the model while it is on, if BENCH_LATENCY is set (latency.mjs has checked its value).
 */
export function countingEnv(env: Env): Env {
  const vars = env as unknown as Record<string, unknown>;
  if (typeof vars.BENCH_LATENCY === "string") model ??= JSON.parse(vars.BENCH_LATENCY) as Latency;
  if (vars.BENCH_COUNT !== "1" && model === undefined) return env;
  const counted: Record<string, unknown> = { ...env };
  for (const [name, value] of Object.entries(env)) {
    if (has(value, "prepare", "batch")) counted[name] = countedDatabase(value as D1Database);
    else if (has(value, "idFromName", "get"))
      counted[name] = countedNamespace(value as DurableObjectNamespace);
    else if (has(value, "send", "sendBatch")) counted[name] = countedQueue(value as Queue);
  }
  return counted as unknown as Env;
}
