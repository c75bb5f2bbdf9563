import type { IndexedDelivery } from "../../index-db/deliveries";
import type { KeyOptions } from "../../keys";
import { DELIVERY_KINDS, DELIVERY_STATUSES } from "../../session/api";
import { Empty } from "../ui";
import { DeliveryTable } from "./delivery-table";

/** How many suspended and failed records the page shows first (the oldest beyond wait for the next look). */
export const ATTENTION_SHOWN = 50;

export interface DeliveryFilters {
  status?: string | undefined;
  kind?: string | undefined;
  sessionKey?: string | undefined;
}

/** A select of `values`, the first choice "any". */
function Choice(props: {
  id: string;
  name: string;
  label: string;
  values: readonly string[];
  value?: string;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.name}>
        {["", ...props.values].map((value) => (
          <option value={value} selected={(props.value ?? "") === value}>
            {value || "any"}
          </option>
        ))}
      </select>
    </>
  );
}

/** The deliveries page: what needs the operator (suspended, failed) first, then every record, filtered. */
export function DeliveriesView(props: {
  attention: IndexedDelivery[];
  moreAttention: boolean;
  recent: IndexedDelivery[];
  filters: DeliveryFilters;
  keyOptions: KeyOptions;
  next?: string | undefined;
}) {
  const count = `${props.attention.length}${props.moreAttention ? "+" : ""}`;
  // Folded unless a filter is in use, so the records come first and what narrows them is in sight.
  const filtered = Object.values(props.filters).some(Boolean);
  return (
    <div class="deliveries-page">
      <h1>Deliveries</h1>
      <section id="attention" aria-labelledby="attention-title">
        <h2 id="attention-title">
          Needs attention: suspended and failed <span class="count">{count}</span>
        </h2>
        {props.attention.length === 0 ? (
          <Empty>Nothing is suspended or failed.</Empty>
        ) : (
          <DeliveryTable
            reloadView
            deliveries={props.attention}
            keyOptions={props.keyOptions}
            caption="Suspended and failed deliveries"
          />
        )}
      </section>
      <section id="recent" aria-labelledby="recent-title">
        <h2 id="recent-title">All deliveries</h2>
        <details class="filter-box" open={filtered}>
          <summary>Filters{filtered ? " (in use)" : ""}</summary>
          <form class="filters" method="get" action="/console/deliveries" aria-label="Filter deliveries">
            <Choice
              id="d-status"
              name="status"
              label="Status"
              values={DELIVERY_STATUSES}
              value={props.filters.status}
            />
            <Choice id="d-kind" name="kind" label="Kind" values={DELIVERY_KINDS} value={props.filters.kind} />
            <label for="d-session">Session key</label>
            <input
              id="d-session"
              name="sessionKey"
              value={props.filters.sessionKey ?? ""}
              autocomplete="off"
            />
            <button type="submit">Filter</button>
            <a href="/console/deliveries">Clear</a>
          </form>
        </details>
        {props.recent.length === 0 ? (
          <Empty>No delivery matches.</Empty>
        ) : (
          <DeliveryTable
            reloadView
            deliveries={props.recent}
            keyOptions={props.keyOptions}
            caption="Deliveries, newest first"
          />
        )}
        {props.next ? (
          <a class="next" href={props.next}>
            Next page
          </a>
        ) : null}
      </section>
    </div>
  );
}
