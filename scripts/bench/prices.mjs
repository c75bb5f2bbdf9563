// Cloudflare's published prices (Workers Paid plan), for the cost of a million of each operation and the
// monthly cost of the reference load (costs-report.mjs, docs/scaling.md). Read on PRICES_READ from the
// pages below; re-read them when this date is old, and update the figures and the date together.
export const PRICES_READ = "2026-11-28";

export const PRICES = {
  base: { usdPerMonth: 5, source: "https://developers.cloudflare.com/workers/platform/pricing/" },
  workerRequests: {
    includedPerMonth: 10_000_000,
    usdPerMillion: 0.3,
    source: "https://developers.cloudflare.com/workers/platform/pricing/",
  },
  workerCpuMs: {
    includedPerMonth: 30_000_000,
    usdPerMillion: 0.02,
    source: "https://developers.cloudflare.com/workers/platform/pricing/",
  },
  // Each RPC method call on a stub is its own request; each alarm invocation is one too.
  doRequests: {
    includedPerMonth: 1_000_000,
    usdPerMillion: 0.15,
    source: "https://developers.cloudflare.com/durable-objects/platform/pricing/",
  },
  // Wall-clock time while an object is active, at 128 MB an object.
  doGbSeconds: {
    includedPerMonth: 400_000,
    usdPerMillion: 12.5,
    source: "https://developers.cloudflare.com/durable-objects/platform/pricing/",
  },
  d1RowsRead: {
    includedPerMonth: 25_000_000_000,
    usdPerMillion: 0.001,
    source: "https://developers.cloudflare.com/d1/platform/pricing/",
  },
  d1RowsWritten: {
    includedPerMonth: 50_000_000,
    usdPerMillion: 1,
    source: "https://developers.cloudflare.com/d1/platform/pricing/",
  },
  d1StorageGbMonth: {
    includedPerMonth: 5,
    usdPerUnit: 0.75,
    source: "https://developers.cloudflare.com/d1/platform/pricing/",
  },
  // A message is three operations: its write, its read and its delete (each per 64 KB).
  queueOperations: {
    includedPerMonth: 1_000_000,
    usdPerMillion: 0.4,
    source: "https://developers.cloudflare.com/queues/platform/pricing/",
  },
};

/** GB an active Durable Object is billed at. */
const DO_GB = 0.128;
/**
 * Active wall time billed per Durable Object request: not measured (the local runtime does not report
 * it); assumed to be one D1 round trip of the latency model (20 ms), which the object's index writes wait
 * on. At this figure duration is a few cents a million requests, so the assumption moves little.
 */
export const DO_ACTIVE_MS_PER_REQUEST = 20;
const QUEUE_OPERATIONS_PER_MESSAGE = 3;

/** An operation's billed units, from its measured counts (counting.ts) and the workerd CPU it used. */
export function billedUnits(c) {
  const doRequests = (c.doCalls ?? 0) + (c.doAlarms ?? 0);
  return {
    workerRequests: (c.workerRequests ?? 0) + (c.consumerBatches ?? 0),
    workerCpuMs: c.cpuMs ?? 0,
    doRequests,
    doGbSeconds: doRequests * (DO_ACTIVE_MS_PER_REQUEST / 1000) * DO_GB,
    d1RowsRead: c.d1RowsRead ?? 0,
    d1RowsWritten: c.d1RowsWritten ?? 0,
    queueOperations: (c.queueMessages ?? 0) * QUEUE_OPERATIONS_PER_MESSAGE,
  };
}

/** USD for a million of an operation, by part (no included amounts: the marginal price). */
export function costPerMillion(c) {
  const units = billedUnits(c);
  return Object.fromEntries(
    Object.entries(units).map(([part, perOp]) => [part, perOp * PRICES[part].usdPerMillion]),
  );
}

/**
 * A month of `perMonth` operations: each part's usage, less what the plan includes, at its price; the
 * plan's base fee and `storageGb` of D1 storage (average over the month) on top. USD by part.
 */
export function monthlyCost(c, perMonth, storageGb = 0) {
  const units = billedUnits(c);
  const parts = Object.fromEntries(
    Object.entries(units).map(([part, perOp]) => {
      const { includedPerMonth, usdPerMillion } = PRICES[part];
      return [part, (Math.max(0, perOp * perMonth - includedPerMonth) / 1e6) * usdPerMillion];
    }),
  );
  const { includedPerMonth, usdPerUnit } = PRICES.d1StorageGbMonth;
  parts.d1Storage = Math.max(0, storageGb - includedPerMonth) * usdPerUnit;
  parts.base = PRICES.base.usdPerMonth;
  return parts;
}

/** The D1 share of a cost by part (rows read, rows written, storage). */
export const d1Cost = (parts) =>
  (parts.d1RowsRead ?? 0) + (parts.d1RowsWritten ?? 0) + (parts.d1Storage ?? 0);
