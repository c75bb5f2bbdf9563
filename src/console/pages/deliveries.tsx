import type { IndexedDelivery } from "../../index-db/deliveries";
import { displayKey, type KeyOptions } from "../../keys";
import { DELIVERY_KINDS, DELIVERY_STATUSES, type DeliveryStatus } from "../../session/api";
import { formatAgo } from "../../text/units";
import { Empty, Status, sessionHref, When } from "../ui";

/** How many suspended and failed records the page shows first (the oldest beyond wait for the next look). */
export const ATTENTION_SHOWN = 50;

// The operator's actions by status, as the session's ledger allows them (src/session/ledger-operator.ts).
const RETRYABLE: readonly DeliveryStatus[] = ["suspended", "failed", "dismissed"];
const DISMISSABLE: readonly DeliveryStatus[] = ["suspended", "failed"];

/** How far ahead, as formatAgo says how long ago: `in 3 min`, `in 5 h`, `in 2 days`. */
const ahead = (ms: number) =>
  ms < 60_000 ? "in under a minute" : `in ${formatAgo(ms).replace(/ ago$/, "")}`;

/** A moment still to come (a retry's time), in words; one already passed is due now. */
function Due({ at, now = Date.now() }: { at: number | undefined; now?: number }) {
  if (at === undefined) return <span class="muted">–</span>;
  const iso = new Date(at).toISOString();
  return (
    <time datetime={iso} title={iso}>
      {at <= now ? "due now" : ahead(at - now)}
    </time>
  );
}

/** Retry and dismiss, posted to the deliveries API; the page reloads to show the record's new state. */
function Actions({ delivery }: { delivery: IndexedDelivery }) {
  const path = `/v1/deliveries/${encodeURIComponent(delivery.deliveryId)}`;
  return (
    <td class="actions">
      {RETRYABLE.includes(delivery.status) ? (
        <form class="retry" data-api={`${path}/retry`} data-after="reload" data-success="Retrying.">
          <button type="submit">Retry</button>
        </form>
      ) : null}
      {DISMISSABLE.includes(delivery.status) ? (
        <form
          class="dismiss"
          data-api={`${path}/dismiss`}
          data-after="reload"
          data-success="Dismissed."
          data-confirm="Dismiss this delivery? It stays undelivered."
        >
          <button type="submit">Dismiss</button>
        </form>
      ) : null}
    </td>
  );
}

function DeliveryTable(props: { deliveries: IndexedDelivery[]; keyOptions: KeyOptions; caption: string }) {
  return (
    <div class="table-wrap">
      <table class="deliveries">
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Session</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Last error</th>
            <th scope="col">Updated</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.deliveries.map((delivery) => (
            <tr data-delivery={delivery.deliveryId}>
              <td>{delivery.kind}</td>
              <td>
                <a href={sessionHref(delivery.sessionKey)}>
                  {displayKey(delivery.sessionKey, props.keyOptions)}
                </a>
              </td>
              <td class="target">{delivery.target}</td>
              <td>
                <Status value={delivery.status} />
              </td>
              <td>{delivery.attempts}</td>
              <td>
                <Due at={delivery.nextAttemptAt} />
              </td>
              <td class="last-error">{delivery.lastError ?? ""}</td>
              <td>
                <When at={delivery.updatedAt} />
              </td>
              <Actions delivery={delivery} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

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
            deliveries={props.attention}
            keyOptions={props.keyOptions}
            caption="Suspended and failed deliveries"
          />
        )}
      </section>
      <section id="recent" aria-labelledby="recent-title">
        <h2 id="recent-title">All deliveries</h2>
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
          <input id="d-session" name="sessionKey" value={props.filters.sessionKey ?? ""} autocomplete="off" />
          <button type="submit">Filter</button>
          <a href="/console/deliveries">Clear</a>
        </form>
        {props.recent.length === 0 ? (
          <Empty>No delivery matches.</Empty>
        ) : (
          <DeliveryTable
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
