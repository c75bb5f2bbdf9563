import { deleteSessionIndex, runIndexInsert, sessionIndexUpsert } from "../index-db/write";
import type { Alarm } from "./alarm";
import { deliverTurn, queuedSend, sessionApi } from "./client";
import { sessionConfig } from "./config";
import { indexRow } from "./index-row";
import { applySessionMigrations } from "./migrations";
import {
  deferEntry,
  isPending,
  leaseEntries,
  type OutboxEntry,
  pendingEntries,
  settleEntry,
} from "./outbox-store";
import { forgetRecord, readRecord } from "./record";
import { recordCompletionUndeliverable } from "./run-progress";
import { postSteerNotice } from "./steer-notice";
import { watcherAway } from "./watchers";
import { writeDeletion } from "./writes";

/** If the object is evicted between a write and its inline delivery, the alarm finishes the job then. */
const INLINE_LEASE_MS = 5000;

/**
 * How a delivery pass left the session: `removed` when it is gone — it deleted itself (a cleanup child
 * after its completion) or its storage was wiped after a delete — so runs in flight here must stop.
 */
export type PassOutcome = "delivered" | "removed";

/** The effects that are one D1 write each, so that a pass can send them together in one batch. */
const isIndexWrite = (entry: OutboxEntry): boolean =>
  entry.kind === "index_sync" || entry.kind === "run_index";

/**
 * Delivers what the session owes others (the `outbox` table): index writes, turns in other sessions,
 * channel posts. Entries are written in the same transaction as the change that owes them, delivered
 * here, retried with backoff until acknowledged; receivers deduplicate, so a retry is always safe.
 */
export class Outbox {
  readonly #storage: DurableObjectStorage;
  readonly #bindings: () => Env;
  readonly #alarm: Alarm;
  /** Entries being delivered right now by a pass of this instance, by id. */
  readonly #delivering = new Set<number>();

  /**
   * `bindings` are the object's own, read at each delivery rather than kept: they belong to the
   * instance (the subagent durability tests replace them on one instance to make deliveries fail).
   */
  constructor(storage: DurableObjectStorage, bindings: () => Env, alarm: Alarm) {
    this.#storage = storage;
    this.#bindings = bindings;
    this.#alarm = alarm;
  }

  get #env(): Env {
    return this.#bindings();
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  /** Delivers what was just written, now, leaving the alarm set for whatever is left. */
  async flush(): Promise<PassOutcome> {
    leaseEntries(this.#sql, Date.now() + INLINE_LEASE_MS);
    await this.#alarm.rearm();
    const outcome = await this.deliver();
    await this.#alarm.rearm();
    return outcome;
  }

  /** One pass over every pending entry; failures stay with a backoff. */
  async deliver(): Promise<PassOutcome> {
    const entries = pendingEntries(this.#sql);
    await this.#deliverIndexWrites(entries);
    for (const entry of entries) {
      // Passes may overlap (a request and the alarm); an entry one of them is delivering is left to it,
      // and one it delivered since this pass read the list is gone, so it is posted once. Waiting for that
      // pass instead could deadlock on a turn sent to ourselves.
      if (this.#delivering.has(entry.id) || !isPending(this.#sql, entry)) continue;
      // A send the Worker is putting on the Queue itself is left to it until its grace is over.
      if (entry.kind === "turn" && entry.payload.viaQueue && entry.nextAttemptAt > Date.now()) continue;
      this.#delivering.add(entry.id);
      try {
        const outcome = await this.#deliverEntry(entry);
        settleEntry(this.#sql, entry);
        if (outcome === "remove_session") return await this.#removeSession();
        if (outcome === "wipe") {
          await this.#wipe();
          return "removed";
        }
      } catch (cause) {
        deferEntry(this.#sql, entry, cause instanceof Error ? cause.message : String(cause));
        console.warn(`session outbox: ${entry.kind} failed (attempt ${entry.attempts + 1}), will retry`);
      } finally {
        this.#delivering.delete(entry.id);
      }
    }
    return "delivered";
  }

  /** Delivers one entry; throws to have it retried. */
  async #deliverEntry(entry: OutboxEntry): Promise<"done" | "remove_session" | "wipe"> {
    const env = this.#env;
    switch (entry.kind) {
      case "index_sync":
      case "run_index":
        for (const statement of this.#indexWrite(entry)) await statement.run();
        return "done";
      case "index_delete":
        await deleteSessionIndex(env.DB, entry.payload.sessionKey, entry.payload.version);
        return readRecord(this.#sql)?.deletedAt !== undefined ? "wipe" : "done";
      case "turn": {
        if (entry.payload.viaQueue) {
          await env.DELIVERIES.send(queuedSend(entry.payload), { contentType: "json" });
          return "done";
        }
        const taker = await deliverTurn(env.SESSION, entry.payload);
        // A session deleted meanwhile (and every requester above it) cannot take the turn: nobody is left.
        if (!taker) {
          console.warn(`turn ${entry.payload.request.runId}: no session left to take it`);
          recordCompletionUndeliverable(this.#sql, entry.payload.request.dedupeKey);
        }
        return entry.payload.afterwards ?? "done";
      }
      case "post":
        await env.DELIVERIES.send(entry.payload, { contentType: "json" });
        return "done";
      case "steer_notice":
        await postSteerNotice(env, sessionConfig(env), entry.payload);
        return "done";
      case "remove_session":
        return "remove_session";
      case "watch_notice": {
        const { watcherKey } = entry.payload;
        const taken = await sessionApi(env.SESSION, watcherKey).watchNotice(entry.payload);
        // A deleted or archived watcher takes nothing: the notice is dropped, not retried.
        if (!taken.ok) watcherAway(this.#sql, watcherKey, "deleted");
        else if (taken.value.taken === "archived") watcherAway(this.#sql, watcherKey, "archived");
        return "done";
      }
    }
  }

  /** The D1 write of an index entry; none for a deleted session's index sync (its delete follows). */
  #indexWrite(entry: OutboxEntry): D1PreparedStatement[] {
    const db = this.#env.DB;
    if (entry.kind === "run_index") return [runIndexInsert(db, entry.payload)];
    const record = readRecord(this.#sql);
    return record && record.deletedAt === undefined
      ? [sessionIndexUpsert(db, indexRow(record, sessionConfig(this.#env)))]
      : [];
  }

  /**
   * The pending index writes (session row, run index) in one D1 batch: one round trip and one
   * transaction instead of one each. If the batch fails, nothing of it was written, and the entries are
   * left to the one-by-one pass that follows, so one bad write cannot hold the others back.
   */
  async #deliverIndexWrites(pending: readonly OutboxEntry[]): Promise<void> {
    // The entries settled here are skipped by the pass that follows (it re-checks each one).
    const entries = pending.filter((entry) => isIndexWrite(entry) && !this.#delivering.has(entry.id));
    if (entries.length < 2) return;
    for (const entry of entries) this.#delivering.add(entry.id);
    try {
      const statements = entries.flatMap((entry) => this.#indexWrite(entry));
      if (statements.length > 0) await this.#env.DB.batch(statements);
      for (const entry of entries) settleEntry(this.#sql, entry);
    } catch (cause) {
      console.warn(`session outbox: batched index writes failed, delivering one by one: ${String(cause)}`);
    } finally {
      for (const entry of entries) this.#delivering.delete(entry.id);
    }
  }

  /** The session deletes itself, then delivers that (its index row goes, then its storage). */
  async #removeSession(): Promise<PassOutcome> {
    if (readRecord(this.#sql)?.deletedAt === undefined)
      this.#storage.transactionSync(() => writeDeletion(this.#sql, Date.now()));
    await this.flush();
    return "removed";
  }

  /** The index no longer points here: drop everything, then restore the empty schema for reuse. */
  async #wipe(): Promise<void> {
    await this.#storage.deleteAll();
    forgetRecord(this.#sql);
    this.#alarm.forget();
    applySessionMigrations(this.#sql);
  }
}
