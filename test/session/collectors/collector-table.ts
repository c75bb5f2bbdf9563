import { runInDurableObject } from "cloudflare:test";
import { stub } from "../../support";

/** One row of a requester's collector table (src/session/store/collector-store.ts). */
export type Member = {
  run_id: string;
  group_id: string;
  state: string;
  status: string | null;
  child_key: string;
};

/** The requester's collector table, oldest first. */
export const members = (key: string): Promise<Member[]> =>
  runInDurableObject(
    stub(key),
    (_instance, state) =>
      state.storage.sql
        .exec("SELECT run_id, group_id, state, status, child_key FROM collector ORDER BY seq")
        .toArray() as unknown as Member[],
  );
