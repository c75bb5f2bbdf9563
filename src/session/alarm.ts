/** When the alarm must next fire: the earliest row of the `due_work` view, never in the past; null for none. */
export function nextAlarmAt(sql: SqlStorage, now = Date.now()): number | null {
  const row = sql.exec<{ next: number | null }>("SELECT MIN(due_at) AS next FROM due_work").one();
  return row.next === null ? null : Math.max(row.next, now);
}

/**
 * While runs execute in this instance (started in the call that queued them), the alarm is only their
 * backstop, for an instance that dies: it is set this far ahead instead of now, so it does not fire
 * beside every run. A run that lasts longer has its handler take it up (it waits for the runs here).
 */
export const BACKSTOP_MS = 5000;

/** The session's one alarm, set to the earliest due work (STYLE: one alarm, driven by a due-work table). */
export class Alarm {
  readonly #storage: DurableObjectStorage;
  /** What this instance last set (null: none); undefined when not known, as once it has fired. */
  #armedAt: number | null | undefined;
  /** True while runs execute here: the alarm is their backstop (BACKSTOP_MS), not their start. */
  #backstop = false;
  /** The storage was wiped (a deleted session): no schema, nothing due, until it is created again. */
  #wiped = false;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** The alarm fired, or storage was wiped: what is set is no longer known. */
  forget(): void {
    this.#armedAt = undefined;
  }

  /** The storage was wiped, its alarm with it (true), or its schema created again (false). */
  storageWiped(wiped: boolean): void {
    this.#wiped = wiped;
    this.#armedAt = wiped ? null : undefined;
  }

  /** Runs execute here from now (true) until they are done (false): see BACKSTOP_MS. */
  backstop(executing: boolean): void {
    this.#backstop = executing;
    // The backstop set meanwhile is no due time: the next rearm sets the alarm for the real one.
    if (!executing) this.#armedAt = undefined;
  }

  /** Sets the alarm for the earliest due work, or clears it when there is none. */
  async rearm(): Promise<void> {
    if (this.#wiped) return;
    const sql = this.#storage.sql;
    const now = Date.now();
    const due = nextAlarmAt(sql, now);
    const next = due !== null && this.#backstop ? Math.max(due, now + BACKSTOP_MS) : due;
    // An alarm already set for no later than `next` runs the handler, which re-arms: no need to write
    // one. Every alarm write is a storage transaction, and those set the pace of local runs.
    const armed = next === null ? this.#armedAt === null : this.#armedAt != null && this.#armedAt <= next;
    if (armed) return;
    if (next === null) await this.#storage.deleteAlarm();
    else await this.#storage.setAlarm(next);
    this.#armedAt = next;
  }
}
