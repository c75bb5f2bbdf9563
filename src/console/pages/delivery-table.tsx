import { displayKey, type KeyOptions } from "../../keys";
import { type DeliveryRecord, DISMISSABLE_STATUSES, RETRYABLE_STATUSES } from "../../session/api";
import { formatAgo } from "../../text/units";
import { DataTable, Status, sessionHref, When } from "../ui";

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
    <td class="actions">
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
    </td>
  );
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
  const { keyOptions } = props;
  return (
    <DataTable
      class="deliveries"
      columns={[
        "Kind",
        keyOptions && "Session",
        "Target",
        "Status",
        "Attempts",
        "Next attempt",
        "Last error",
        "Updated",
        "Actions",
      ]}
      caption={props.caption}
    >
      {props.deliveries.map((delivery) => (
        <tr data-delivery={delivery.deliveryId}>
          <td>{delivery.kind}</td>
          {keyOptions ? (
            <td>
              <a href={sessionHref(delivery.sessionKey)}>{displayKey(delivery.sessionKey, keyOptions)}</a>
            </td>
          ) : null}
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
          <Actions delivery={delivery} reload={props.reloadView === true} />
        </tr>
      ))}
    </DataTable>
  );
}
