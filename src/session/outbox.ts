import { deleteSessionDeliveries, deliveryIndexDelete, deliveryIndexUpsert } from "../index-db/deliveries";
import { deleteSessionIndex, runIndexInsert, sessionIndexUpsert } from "../index-db/write";
import type { Alarm } from "./alarm";
import { ledgerError } from "./api-deliveries";
import { deliverTurn, queuedSend, sessionApi } from "./client";
import { deliverCollectorEntry } from "./collector-delivery";
import { sessionConfig } from "./config";
import { retryDelayMs } from "./delivery-schedule";
import { deliveryIdOf } from "./delivery-store";
import { indexRow } from "./index-row";
import {
  attemptFailed,
  byOutboxKey,
  indexedDelivery,
  markDelivered,
  markFailed,
  markHandedOff,
  markNotRequired,
  pruneDeliveries,
} from "./ledger";
import { applySessionMigrations } from "./migrations";
import {
  deferEntry,
  dueEntries,
  hasOutboxKind,
  isPending,
  leaseDueEntries,
  type OutboxEntry,
  settleEntry,
} from "./outbox-store";
import { forgetRecord, readRecord } from "./record";
import { type SearchChunk, searchChunkWritten, searchIndexChunk } from "./search-index";
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
type IndexWrite = Extract<
  OutboxEntry,
  { kind: "index_sync" | "run_index" | "delivery_index" | "search_index" }
>;
const isIndexWrite = (entry: OutboxEntry): entry is IndexWrite =>
  entry.kind === "index_sync" ||
  entry.kind === "run_index" ||
  entry.kind === "delivery_index" ||
  entry.kind === "search_index";

/**
 * How one entry went: `delivered` (its ledger record, if any, is delivered), `handed_off` (the Queue
 * takes it on), `settled` (its record was settled otherwise), or the session must go.
 */
type EntryOutcome = "delivered" | "handed_off" | "settled" | "remove_session" | "wipe";

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
  /** The search index chunk each search entry being written carries, by entry id, until it lands. */
  readonly #searchChunks = new Map<number, SearchChunk>();

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

  /** Delivers what is due (what was just written), now, leaving the alarm set for whatever is left. */
  async flush(): Promise<PassOutcome> {
    const now = Date.now();
    const taken = leaseDueEntries(this.#sql, now, now + INLINE_LEASE_MS);
    await this.#alarm.rearm();
    const outcome = await this.#pass(dueEntries(this.#sql, now, taken));
    await this.#alarm.rearm();
    return outcome;
  }

  /** One pass over every entry due now (the alarm's); failures wait for their retry time. */
  async deliver(): Promise<PassOutcome> {
    const now = Date.now();
    pruneDeliveries(this.#sql, now);
    return this.#pass(dueEntries(this.#sql, now));
  }

  /**
   * Handoffs first (turns, posts, notices: someone waits for them), then every index write due, in one
   * D1 batch, those the handoffs owed included: a completion does not wait behind a D1 round trip.
   */
  async #pass(entries: readonly OutboxEntry[]): Promise<PassOutcome> {
    for (const entry of entries) {
      if (isIndexWrite(entry)) continue;
      // Passes may overlap (a request and the alarm); an entry one of them is delivering is left to it,
      // and one it delivered since this pass read the list is gone, so it is posted once. Waiting for that
      // pass instead could deadlock on a turn sent to ourselves.
      if (this.#delivering.has(entry.id) || !isPending(this.#sql, entry)) continue;
      // A send the Worker is putting on the Queue itself is left to it until its grace is over.
      if (entry.kind === "turn" && entry.payload.viaQueue && entry.nextAttemptAt > Date.now()) continue;
      this.#delivering.add(entry.id);
      try {
        const outcome = await this.#deliverEntry(entry);
        // An entry replaced while it was delivered stays owed, and so does its record, for the newer payload.
        if (settleEntry(this.#sql, entry)) {
          if (outcome === "delivered" || outcome === "remove_session")
            markDelivered(this.#sql, byOutboxKey(entry.key));
          if (outcome === "handed_off") markHandedOff(this.#sql, entry.key);
        }
        if (outcome === "remove_session") return await this.#removeSession();
        if (outcome === "wipe") {
          await this.#wipe();
          return "removed";
        }
      } catch (cause) {
        this.#attemptFailed(entry, cause instanceof Error ? cause.message : String(cause));
      } finally {
        this.#delivering.delete(entry.id);
      }
    }
    // This pass's own index entries as they are now (a newer change may have replaced one meanwhile),
    // and those the handoffs owed since.
    const ids = new Set(entries.map((entry) => entry.id));
    const owed = dueEntries(this.#sql, Date.now()).filter((entry) => !ids.has(entry.id));
    await this.#deliverIndexWrites([...dueEntries(this.#sql, Date.now(), [...ids]), ...owed]);
    return "delivered";
  }

  /**
   * A failed attempt waits for its retry time by the one schedule; a ledger record past its deadline
   * is suspended instead (its payload stays with the record, for an operator's retry).
   */
  #attemptFailed(entry: OutboxEntry, error: string): void {
    const now = Date.now();
    const ledger = isIndexWrite(entry)
      ? undefined
      : attemptFailed(this.#sql, byOutboxKey(entry.key), error, now);
    if (ledger && "suspended" in ledger) {
      settleEntry(this.#sql, entry);
      console.warn(
        `session outbox: ${entry.kind} suspended after ${entry.attempts + 1} attempts: ${ledgerError(error)}`,
      );
      return;
    }
    deferEntry(this.#sql, entry, error, ledger?.retryAt ?? now + retryDelayMs(entry.attempts + 1));
    console.warn(`session outbox: ${entry.kind} failed (attempt ${entry.attempts + 1}), will retry`);
  }

  /** Delivers one entry that is not an index write (those go in the pass's batch); throws to have it retried. */
  async #deliverEntry(entry: Exclude<OutboxEntry, IndexWrite>): Promise<EntryOutcome> {
    const env = this.#env;
    switch (entry.kind) {
      case "index_delete": {
        // A collector child's result goes out before its storage does (retried until it is settled).
        // What a collector child is owed (its result to its requester, or a member's release or kill)
        // goes out before the storage does (each is retried until settled, 30 minutes at most).
        if (hasOutboxKind(this.#sql, "collector_result") || hasOutboxKind(this.#sql, "collector_release"))
          throw new Error("a collector handoff is still owed");
        await deleteSessionIndex(env.DB, entry.payload.sessionKey, entry.payload.version);
        const deletedAt = readRecord(this.#sql)?.deletedAt;
        if (deletedAt === undefined) return "delivered";
        // Its ledger goes with its storage: the index keeps no record the session cannot answer for.
        await deleteSessionDeliveries(env.DB, entry.payload.sessionKey, deletedAt);
        return "wipe";
      }
      case "turn": {
        if (entry.payload.viaQueue) {
          await env.DELIVERIES.send(queuedSend(entry.payload), { contentType: "json" });
          return "delivered";
        }
        const taker = await deliverTurn(env.SESSION, entry.payload);
        // A session deleted meanwhile (and every requester above it) cannot take the turn: nobody is left.
        if (!taker) {
          const why = `no session left to take it: ${entry.payload.targets.join(", ")} gone`;
          console.warn(`turn ${entry.payload.request.runId}: ${why}`);
          markFailed(this.#sql, byOutboxKey(entry.key), why);
          return "settled";
        }
        return entry.payload.afterwards ?? "delivered";
      }
      case "post": {
        // The Queue's consumer reports each attempt to this session's ledger by the record's id.
        const deliveryId = deliveryIdOf(this.#sql, entry.key);
        await env.DELIVERIES.send(
          { ...entry.payload, ...(deliveryId ? { deliveryId } : {}) },
          { contentType: "json" },
        );
        return "handed_off";
      }
      case "steer_notice":
        await postSteerNotice(env, sessionConfig(env), entry.payload);
        return "delivered";
      case "remove_session":
        return "remove_session";
      case "collector_release":
      case "collector_result":
        return deliverCollectorEntry(env, this.#sql, entry);
      case "watch_notice": {
        const { watcherKey } = entry.payload;
        const taken = await sessionApi(env.SESSION, watcherKey).watchNotice(entry.payload);
        // A deleted or archived watcher takes nothing: the notice is not retried.
        const away = !taken.ok ? "deleted" : taken.value.taken === "archived" ? "archived" : undefined;
        if (!away) return "delivered";
        watcherAway(this.#sql, watcherKey, away);
        if (away === "deleted")
          markFailed(this.#sql, byOutboxKey(entry.key), `watcher ${watcherKey} was deleted`);
        else markNotRequired(this.#sql, byOutboxKey(entry.key), `watcher ${watcherKey} is archived`);
        return "settled";
      }
    }
  }

  /** The D1 write of an index entry; none for a deleted session's index sync (its delete follows). */
  #indexWrite(entry: IndexWrite): D1PreparedStatement[] {
    const db = this.#env.DB;
    if (entry.kind === "run_index") return [runIndexInsert(db, entry.payload)];
    if (entry.kind === "search_index") {
      const chunk = searchIndexChunk(this.#sql, db);
      this.#searchChunks.set(entry.id, chunk);
      return chunk.statements;
    }
    if (entry.kind === "delivery_index") {
      const { deliveryId } = entry.payload;
      const delivery = indexedDelivery(this.#sql, deliveryId);
      return [delivery ? deliveryIndexUpsert(db, delivery) : deliveryIndexDelete(db, deliveryId)];
    }
    const record = readRecord(this.#sql);
    return record && record.deletedAt === undefined
      ? [sessionIndexUpsert(db, indexRow(record, sessionConfig(this.#env)))]
      : [];
  }

  /**
   * The due index writes (session row, run index, delivery records) in one D1 batch: one round trip and
   * one transaction instead of one each. If the batch fails, nothing of it was written: each is then
   * tried on its own, so one bad write cannot hold the others back, and a failed one waits for its retry.
   */
  async #deliverIndexWrites(due: readonly OutboxEntry[]): Promise<void> {
    const entries = due.filter(isIndexWrite).filter((entry) => !this.#delivering.has(entry.id));
    if (entries.length === 0) return;
    for (const entry of entries) this.#delivering.add(entry.id);
    // Search rows last: they require the session's index row, which this batch may be writing first.
    const ordered = [...entries].sort(
      (a, b) => Number(a.kind === "search_index") - Number(b.kind === "search_index"),
    );
    try {
      const statements = ordered.flatMap((entry) => this.#indexWrite(entry));
      if (statements.length > 0) await this.#env.DB.batch(statements);
      for (const entry of entries) this.#indexWritten(entry);
    } catch (cause) {
      console.warn(`session outbox: batched index writes failed, writing one by one: ${String(cause)}`);
      // In the same order: a search chunk writes only once its session's index row is there, so it
      // waits for its retry when that row's write failed.
      let rowFailed = false;
      for (const entry of ordered) {
        try {
          if (rowFailed && entry.kind === "search_index")
            throw new Error("the session's index row is not written");
          for (const statement of this.#indexWrite(entry)) await statement.run();
          this.#indexWritten(entry);
        } catch (failure) {
          if (entry.kind === "index_sync") rowFailed = true;
          this.#attemptFailed(entry, String(failure));
        }
      }
    } finally {
      for (const entry of entries) {
        this.#delivering.delete(entry.id);
        this.#searchChunks.delete(entry.id);
      }
    }
  }

  /** An index write landed: settled, except a search chunk with a backlog behind it (owed again now). */
  #indexWritten(entry: IndexWrite): void {
    const chunk = this.#searchChunks.get(entry.id);
    const owedAgain =
      chunk !== undefined && this.#storage.transactionSync(() => searchChunkWritten(this.#sql, chunk));
    if (!owedAgain) settleEntry(this.#sql, entry);
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
