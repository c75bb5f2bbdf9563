// What each operation costs the platform (docs/scaling.md): with the var BENCH_COUNT=1 (the costs phase of
// the bench, never the timed ones), the bench's Worker and its session objects see their bindings through
// these wrappers, which count D1 round trips, statements and rows, Durable Object calls and Queue
// messages. One module in one isolate (workerd runs a Worker's entry points and its objects' class in the
// same one), so the counts add up across the Worker, the objects and the consumer.

export interface Counts {
  /** D1 round trips: one per statement run alone, one per batch. */
  d1Calls: number;
  d1Statements: number;
  /** Statements that changed a row (D1's meta.changes > 0): the writes a database serializes. */
  d1Writes: number;
  d1RowsRead: number;
  d1RowsWritten: number;
  /** Calls into a Durable Object (RPC methods and fetch) through a namespace's stub. */
  doCalls: number;
  queueMessages: number;
}

const zero = (): Counts => ({
  d1Calls: 0,
  d1Statements: 0,
  d1Writes: 0,
  d1RowsRead: 0,
  d1RowsWritten: 0,
  doCalls: 0,
  queueMessages: 0,
});
let counts = zero();

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
          const result = await target.all();
          countMeta(result);
          return result.results[0] ?? null;
        };
      if (prop === "all" || prop === "run" || prop === "raw")
        return async (...args: unknown[]) => {
          counts.d1Calls++;
          counts.d1Statements++;
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

function countedDatabase(db: D1Database): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => countedStatement(target.prepare(sql));
      if (prop === "batch")
        return async (statements: D1PreparedStatement[]) => {
          counts.d1Calls++;
          counts.d1Statements += statements.length;
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
        return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
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
        return (...args: unknown[]) => {
          counts.queueMessages++;
          return Reflect.apply(value as (...a: unknown[]) => Promise<void>, target, args);
        };
      if (prop === "sendBatch")
        return (messages: unknown[], ...rest: unknown[]) => {
          counts.queueMessages += messages.length;
          return Reflect.apply(value as (...a: unknown[]) => Promise<void>, target, [messages, ...rest]);
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const has = (value: unknown, ...names: string[]) =>
  typeof value === "object" && value !== null && names.every((name) => name in value);

/** `env` with every D1 database, Durable Object namespace and queue binding counted, if BENCH_COUNT=1. */
export function countingEnv(env: Env): Env {
  if ((env as unknown as Record<string, unknown>).BENCH_COUNT !== "1") return env;
  const counted: Record<string, unknown> = { ...env };
  for (const [name, value] of Object.entries(env)) {
    if (has(value, "prepare", "batch")) counted[name] = countedDatabase(value as D1Database);
    else if (has(value, "idFromName", "get"))
      counted[name] = countedNamespace(value as DurableObjectNamespace);
    else if (has(value, "send", "sendBatch")) counted[name] = countedQueue(value as Queue);
  }
  return counted as unknown as Env;
}
