import type { DeliveryRecord } from "../../session/api";
import { formatRuntime } from "../../text/units";
import { Empty, Status, When } from "../ui";

/** A time still to come, in words (`in 45s`); `When` reads only the past. */
function Soon({ at }: { at: number | undefined }) {
  if (at === undefined) return <span class="muted">–</span>;
  const iso = new Date(at).toISOString();
  return (
    <time datetime={iso} title={iso}>
      {at <= Date.now() ? "due now" : `in ${formatRuntime(at - Date.now())}`}
    </time>
  );
}

/** What the operator may do with a record the ledger gave up on: try again, or leave it undelivered. */
export function DeliveryActions({ delivery }: { delivery: DeliveryRecord }) {
  if (delivery.status !== "suspended" && delivery.status !== "failed") return null;
  const path = `/v1/deliveries/${encodeURIComponent(delivery.deliveryId)}`;
  return (
    <>
      <form class="retry" data-api={`${path}/retry`} data-success="Retrying the delivery.">
        <button type="submit">Retry</button>
      </form>
      <form
        class="dismiss"
        data-api={`${path}/dismiss`}
        data-confirm="Leave this delivery undelivered?"
        data-success="Dismissed."
      >
        <button type="submit">Dismiss</button>
      </form>
    </>
  );
}

/** One session's delivery records (SPEC §16), newest first, with a link to the rest when there are more. */
export function SessionDeliveries({
  deliveries,
  more,
}: {
  deliveries: DeliveryRecord[];
  /** The deliveries page for this session, when this list is not all of them. */
  more?: string;
}) {
  if (deliveries.length === 0) return <Empty>No deliveries.</Empty>;
  return (
    <>
      <div class="table-wrap">
        <table class="deliveries">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Target</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Created</th>
              <th scope="col">Last error</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr data-delivery={delivery.deliveryId}>
                <td>{delivery.kind}</td>
                <td>{delivery.target}</td>
                <td>
                  <Status value={delivery.status} />
                </td>
                <td>{delivery.attempts}</td>
                <td>
                  <Soon at={delivery.nextAttemptAt} />
                </td>
                <td>
                  <When at={delivery.createdAt} />
                </td>
                <td class="delivery-error">{delivery.lastError ?? ""}</td>
                <td>
                  <DeliveryActions delivery={delivery} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more ? (
        <p>
          <a href={more}>All of this session's deliveries</a>
        </p>
      ) : null}
    </>
  );
}
