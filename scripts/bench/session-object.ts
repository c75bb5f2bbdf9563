import { SessionObject } from "../../src/session/session-object";
import { countAlarm, countingEnv } from "./counting";

/**
 * The session object with the bench baselines on top (scripts/bench/wrangler.toml binds SESSION to it):
 * what the service's calls cost at the least, measured in the same object. Named `bench…` so they never
 * override a method of SessionObject.
 */
export class BenchSessionObject extends SessionObject {
  // The object's bindings counted (counting.ts), as the Worker's are.
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, countingEnv(env));
  }

  // Each alarm is a billed Durable Object request (costs.mjs).
  override async alarm(): Promise<void> {
    countAlarm();
    return super.alarm();
  }

  /** A bare RPC into the object: the floor under every call the Worker makes to a session. */
  async benchPing(): Promise<string> {
    return "pong";
  }

  /**
   * `calls` bare RPCs, one after another, from this object into the session object `peerKey` (its
   * `benchPing`): the floor under one object handing something to another, as a completion does. Timed
   * here, in ms for all of them: the runtime's clock moves only across I/O and in whole ms, so one call
   * is timed as a share of several.
   */
  async benchPingPeer(peerKey: string, calls: number): Promise<number> {
    const peer = (this.env.SESSION as unknown as DurableObjectNamespace<BenchSessionObject>).getByName(
      peerKey,
    );
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await peer.benchPing();
    return performance.now() - t0;
  }

  /**
   * One durable write (a storage key, not a session table): its answer leaves once the write is
   * committed, as any write of the service's does — the floor under "a message committed, and said so".
   */
  async benchWrite(): Promise<number> {
    const at = Date.now();
    await this.ctx.storage.put("bench-write", at);
    return at;
  }

  /** The history page's row read (newest `limit` bodies), without the service's work around it. */
  async benchHistoryRows(limit: number): Promise<number> {
    const rows = this.ctx.storage.sql.exec("SELECT body FROM message ORDER BY seq DESC LIMIT ?", limit);
    return rows.toArray().length;
  }

  /**
   * The newest `limit` messages' stored safe copies as one JSON array, as a history page holds them: the
   * floor under `sessions_history` without the tool (no auth, no checks, no counts, no byte cap).
   */
  async benchPageText(limit: number): Promise<string> {
    const rows = this.ctx.storage.sql.exec<{ json: string }>(
      "SELECT COALESCE(safe_body, body) AS json FROM message ORDER BY chat_seq DESC LIMIT ?",
      limit,
    );
    return `[${rows
      .toArray()
      .map((row) => row.json)
      .reverse()
      .join(",")}]`;
  }
}
