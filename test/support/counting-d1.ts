/** One D1 round trip: a statement run alone, or a batch of `size` statements. */
export type D1Call = { kind: "single" } | { kind: "batch"; size: number };

/**
 * `db`, telling `before` of each round trip before it is made; `before` may refuse it by throwing (a D1
 * outage). Its statements are wrapped too, and `batch` hands D1 back its own objects.
 */
export function countingDatabase(db: D1Database, before: (call: D1Call) => void): D1Database {
  const reals = new WeakMap<object, D1PreparedStatement>();
  const wrap = (statement: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(inner, name) {
        const value = Reflect.get(inner, name, inner);
        if (name === "bind") return (...args: unknown[]) => wrap(inner.bind(...args));
        if (name !== "run" && name !== "all" && name !== "first" && name !== "raw") return value;
        return async (...args: unknown[]) => {
          before({ kind: "single" });
          return Reflect.apply(value, inner, args);
        };
      },
    });
    reals.set(wrapped, statement);
    return wrapped;
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === "prepare") return (sql: string) => wrap(target.prepare(sql));
      if (property === "batch")
        return async (statements: D1PreparedStatement[]) => {
          before({ kind: "batch", size: statements.length });
          return target.batch(statements.map((statement) => reals.get(statement) ?? statement));
        };
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * A copy of `env` whose index shards (`DB`, `DB_1`, …) each count through `countingDatabase`: one wrapper
 * per binding, so the shards keep their identity (src/index-db/shards.ts compares them).
 */
export function countingShards<E extends object>(env: E, before: (call: D1Call) => void): E {
  const counted = { ...env } as Record<string, unknown>;
  for (const [name, value] of Object.entries(env))
    if (/^DB(_\d+)?$/.test(name) && typeof value === "object")
      counted[name] = countingDatabase(value as D1Database, before);
  return counted as E;
}
