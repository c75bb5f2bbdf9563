import type { DeliveryRecord } from "../../session/api";
import { Empty } from "../ui";
import { DeliveryTable } from "./delivery-table";

/** One session's delivery records (SPEC §16), newest first, with a link to the rest when there are more. */
export function SessionDeliveries({
  deliveries,
  more,
}: {
  deliveries: DeliveryRecord[];
  /** The deliveries page for this session, when this list is not all of them. */
  more?: string | undefined;
}) {
  if (deliveries.length === 0) return <Empty>No deliveries.</Empty>;
  return (
    <>
      <DeliveryTable deliveries={deliveries} caption="This session's deliveries" />
      {more ? (
        <p>
          <a href={more}>All of this session's deliveries</a>
        </p>
      ) : null}
    </>
  );
}
