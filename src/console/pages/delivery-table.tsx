import { displayKey, type KeyOptions } from "../../keys";
import { type DeliveryRecord, DISMISSABLE_STATUSES, RETRYABLE_STATUSES } from "../../session/api";
import { formatAgo } from "../../text/units";
import { type Column, DataTable } from "../data-table";
import { KeyText, Status, sessionHref, When } from "../ui";

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

/** Retry and dismiss where the ledger takes them; the page reloads to show the record's new state. */
function Actions({ delivery, reload }: { delivery: DeliveryRecord; reload: boolean }) {
  const path = `/v1/deliveries/${encodeURIComponent(delivery.deliveryId)}`;
  // The deliveries page reloads whole; a session page only its live regions (its forms keep their text).
  const after = reload ? { "data-after": "reload" } : {};
  return (
    <>
      {RETRYABLE_STATUSES.includes(delivery.status) ? (
        <form class="retry" data-api={`${path}/retry`} {...after} data-success="Retrying.">
          <button type="submit">Retry</button>
        </form>
      ) : null}
      {DISMISSABLE_STATUSES.includes(delivery.status) ? (
        <form
          class="dismiss"
          data-api={`${path}/dismiss`}
          {...after}
          data-success="Dismissed."
          data-confirm="Dismiss this delivery? It stays undelivered."
        >
          <button type="submit">Dismiss</button>
        </form>
      ) : null}
    </>
  );
}

/** The columns of a delivery table; the session's only when the records are of several sessions. */
function deliveryColumns(keyOptions: KeyOptions | undefined, reload: boolean) {
  const columns: (Column<DeliveryRecord> | false)[] = [
    { name: "Kind", cell: (delivery) => delivery.kind },
    keyOptions !== undefined && {
      name: "Session",
      cell: (delivery) => (
        <a href={sessionHref(delivery.sessionKey)}>
          <KeyText value={displayKey(delivery.sessionKey, keyOptions)} />
        </a>
      ),
    },
    { name: "Target", class: "target", cell: (delivery) => <KeyText value={delivery.target} /> },
    { name: "Status", cell: (delivery) => <Status value={delivery.status} /> },
    { name: "Attempts", cell: (delivery) => delivery.attempts },
    { name: "Next attempt", cell: (delivery) => <Due at={delivery.nextAttemptAt} /> },
    { name: "Last error", class: "last-error", wide: true, cell: (delivery) => delivery.lastError ?? "" },
    { name: "Updated", cell: (delivery) => <When at={delivery.updatedAt} /> },
    {
      name: "Actions",
      class: "actions",
      wide: true,
      cell: (delivery) => <Actions delivery={delivery} reload={reload} />,
    },
  ];
  return columns;
}

/**
 * Delivery records (SPEC §16) as the deliveries page and a session's page show them: with the session
 * column when the records are of several sessions (`keyOptions` given).
 */
export function DeliveryTable(props: {
  deliveries: DeliveryRecord[];
  caption: string;
  keyOptions?: KeyOptions;
  /** After an action, reload the whole view (the deliveries page), not only the live regions. */
  reloadView?: boolean;
}) {
  return (
    <DataTable
      class="deliveries"
      columns={deliveryColumns(props.keyOptions, props.reloadView === true)}
      rows={props.deliveries}
      rowAttrs={(delivery) => ({ "data-delivery": delivery.deliveryId })}
      caption={props.caption}
    />
  );
}
