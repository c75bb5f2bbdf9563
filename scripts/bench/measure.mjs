// A small closed-loop client: `concurrency` workers each send the next request as soon as the last one
// answers, for a fixed time, after a warm-up; repeated, with the median and spread over repetitions.

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function runFor(request, concurrency, durationMs) {
  const latencies = [];
  let failures = 0;
  const end = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < end; i++) {
        const t0 = performance.now();
        const ok = await request(worker, i).then(
          (result) => result !== false,
          () => false,
        );
        if (ok) latencies.push(performance.now() - t0);
        else failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    rps: latencies.length / seconds,
    count: latencies.length,
    failures,
  };
}

/**
 * Measures `request(worker, i)` (a promise; false or a rejection counts as a failure). Returns the
 * median over repetitions of p50/p90/p99 (ms) and throughput (req/s), with each one's min–max.
 */
export async function measure(
  request,
  { concurrency = 1, warmupMs = 500, durationMs = 2000, reps = 3 } = {},
) {
  await runFor(request, concurrency, warmupMs);
  const runs = [];
  for (let rep = 0; rep < reps; rep++) runs.push(await runFor(request, concurrency, durationMs));
  const stat = (key) => {
    const values = runs.map((run) => run[key]);
    return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
  };
  return {
    concurrency,
    p50: stat("p50"),
    p90: stat("p90"),
    p99: stat("p99"),
    rps: stat("rps"),
    count: runs.reduce((sum, run) => sum + run.count, 0),
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

/** Latency of `count` one-at-a-time samples of an async operation returning its own duration (ms). */
export async function sample(operation, count) {
  const values = [];
  for (let i = 0; i < count; i++) values.push(await operation(i));
  values.sort((a, b) => a - b);
  return { p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99), count };
}
