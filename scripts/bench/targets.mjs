// The targets of issue 6 §2, each checked against this run's figures.
import { fireAndForgetMet } from "./send-report.mjs";

const p50 = (row) => row?.timing?.p50?.median ?? row?.timing?.p50;
const find = (results, test) => results.filter((row) => row.timing && test(row));
const healthzOf = (results, row, which = "healthz") =>
  results.find((entry) => entry.baseline === which && (entry.phase ?? 1) === (row.phase ?? 1));
const fmt = (value) => value.toFixed(2);

/** Each target: { name, met, figure }. */
export function targets(results) {
  const out = [];
  const lists = find(results, (row) => row.filter && row.via === "API");
  const worstList = lists
    .map((row) => ({ row, ratio: p50(row) / p50(healthzOf(results, row)) }))
    .sort((a, b) => b.ratio - a.ratio)[0];
  if (worstList)
    out.push({
      name: "sessions_list p50 ≤ 3× /healthz p50 (every API filter, both sizes)",
      met: worstList.ratio <= 3,
      figure: `worst ${fmt(worstList.ratio)}× (${worstList.row.name}, ${fmt(p50(worstList.row))} ms)`,
    });
  for (const row of find(
    results,
    (entry) => entry.limit === 200 && entry.name.startsWith("sessions_history"),
  )) {
    const ratio = p50(row) / p50(healthzOf(results, row));
    out.push({
      name: `${row.name} p50 ≤ 3× /healthz p50`,
      met: ratio <= 3,
      figure: `${fmt(ratio)}× (${fmt(p50(row))} ms)`,
    });
  }
  const withRows = results.filter((row) => row.rowsRead !== undefined);
  const over = withRows.filter((row) => row.rowsRead > 51);
  if (withRows.length > 0)
    out.push({
      name: "indexed list filters read ≤ limit + 1 = 51 rows, any size and cursor depth",
      met: over.length === 0,
      figure: over.length
        ? over.map((row) => `${row.name}: ${row.rowsRead}`).join("; ")
        : `max ${Math.max(...withRows.map((row) => row.rowsRead))}`,
    });
  const sizes = [...new Set(withRows.map((row) => row.size))].sort((a, b) => a - b);
  if (sizes.length === 2) {
    const pairs = withRows
      .filter((row) => row.size === sizes[1])
      .map((large) => {
        const small = withRows.find((row) => row.size === sizes[0] && row.filter === large.filter);
        return { filter: large.filter, ratio: p50(large) / p50(small) };
      });
    const bad = pairs.filter((pair) => pair.ratio > 1.3);
    out.push({
      name: `list p50 at ${sizes[1]} sessions within 1.3× of ${sizes[0]}`,
      met: bad.length === 0,
      figure: pairs.map((pair) => `${pair.filter} ${fmt(pair.ratio)}×`).join(", "),
    });
  }
  const histories = find(
    results,
    (row) => row.limit !== undefined && row.name.startsWith("sessions_history"),
  );
  const histSizes = [...new Set(histories.map((row) => row.size))].sort((a, b) => a - b);
  for (const limit of [20, 200]) {
    const [small, large] = histSizes.map((size) =>
      histories.find((row) => row.size === size && row.limit === limit),
    );
    if (!small || !large) continue;
    const ratio = p50(large) / p50(small);
    out.push({
      name: `history limit ${limit} p50 at ${large.size} within 1.3× of ${small.size}`,
      met: ratio <= 1.3,
      figure: `${fmt(ratio)}×`,
    });
  }
  // The accept path's throughput (issue 16): the row whose sends no run follows (messaging.mjs).
  const fire = results.find(
    (row) => row.name.startsWith("sessions_send fire-and-forget c=") && row.name.endsWith("accept path only"),
  );
  if (fire) {
    const healthz8 = healthzOf(results, fire, "healthz8").timing.rps.median;
    const share = fire.timing.rps.median / healthz8;
    // The platform's floor for the same path: one D1 key read and one Queue send, nothing after them.
    const floor = results.find((row) => row.name.startsWith("baseline: D1 key read + Queue send"));
    const floorShare = floor
      ? `; the floor (D1 read + Queue send) is ${((floor.timing.rps.median / healthz8) * 100).toFixed(0)}%`
      : "";
    out.push({
      name: "fire-and-forget throughput (accept path) ≥ 50% of /healthz at c=8, or within 1.5× of a lower floor",
      met: floor ? fireAndForgetMet(fire.timing.rps.median, healthz8, floor.timing.rps.median) : share >= 0.5,
      figure: `${(share * 100).toFixed(0)}% (${fire.timing.rps.median.toFixed(0)} req/s)${floorShare}`,
    });
  }
  const delivery = results.find((row) => row.name.startsWith("sessions_send delivery"));
  if (delivery)
    out.push({
      name: "delivery p50 < queue batch timeout (1 s) + 20 ms",
      met: p50(delivery) < 1020,
      figure: `${fmt(p50(delivery))} ms`,
    });
  const wait = results.find((row) => row.name.startsWith("sessions_send wait (instant"));
  if (wait) {
    const ratio = p50(wait) / p50(healthzOf(results, wait));
    out.push({
      name: "send-and-wait p50 ≤ 10× /healthz p50",
      met: ratio <= 10,
      figure: `${fmt(ratio)}× (${fmt(p50(wait))} ms)`,
    });
  }
  return out;
}
