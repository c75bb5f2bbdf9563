import { agentApi } from "../../agent-object/client";
import { deleteSessionDeliveries } from "../../index-db/deliveries";
import { writeStateFloor } from "../../index-db/generations";
import { deleteSessionGrants } from "../../index-db/grants";
import { indexShards, keyShard } from "../../index-db/shards";
import { deleteSessionIndex, deleteSessionRuns } from "../../index-db/write";
import { deliveryQueue } from "../../queue/queues";
import { postSignedWebhook } from "../../webhooks/signing";
import type { Alarm } from "../alarm";
import { ledgerError } from "../api/api-deliveries";
import { retryDelayMs } from "../api/delivery-schedule";
import { deliverTurn, queuedSend, sessionApi } from "../client";
import { deliverCollectorEntry } from "../collectors/collector-delivery";
import { sessionConfig } from "../config";
import { forgetRecord, readRecord } from "../record/record";
import {
  attemptFailed,
  byOutboxKey,
  markDelivered,
  markFailed,
  markHandedOff,
  markNotRequired,
  pruneDeliveries,
} from "../store/delivery-ledger";
import { deliveryIdOf } from "../store/delivery-store";
import {
  deferEntry,
  dueEntries,
  hasOutboxKind,
  heldIndexEntries,
  type IndexWrite,
  isIndexWrite,
  isPending,
  leaseDueEntries,
  type OutboxEntry,
  settleEntry,
} from "../store/outbox-store";
import { watcherAway } from "../store/watchers";
import { bindToParent } from "../writes/lifecycle";
import { writeDeletion } from "../writes/writes";
import { IndexBatch } from "./outbox-index";
import { postSteerNotice } from "./steer-notice";

/** If the object is evicted between a write and its inline delivery, the alarm finishes the job then. */
const INLINE_LEASE_MS = 5000;

/**
 * How a delivery pass left the session: `removed` when it is gone — it deleted itself (a cleanup child
 * after its completion) or its storage was wiped after a delete — so runs in flight here must stop.
 */
export type PassOutcome = "delivered" | "removed";

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
  readonly #indexBatch: IndexBatch;
  /** The index batches being written by passes of this instance (flushIndexWrites waits for them). */
  readonly #indexWrites = new Set<Promise<void>>();
  /** Wakes the agents_wait calls parked here (a collector member failed at its release's deadline). */
  readonly #wakeCollectorWaits: (runId: string) => void;
  /** Stops the runs executing here: a pass that removed the session is the one case that reaches runs. */
  readonly #removed: () => void;
  /** Tells the object its storage is gone: it holds no schema until it is used again. */
  readonly #wiped: () => void;

  /**
   * `bindings` are the object's own, read at each delivery rather than kept: they belong to the
   * instance (the subagent durability tests replace them on one instance to make deliveries fail).
   */
  constructor(
    storage: DurableObjectStorage,
    bindings: () => Env,
    alarm: Alarm,
    wakeCollectorWaits: (runId: string) => void,
    removed: () => void,
    wiped: () => void,
  ) {
    this.#storage = storage;
    this.#wiped = wiped;
    this.#wakeCollectorWaits = wakeCollectorWaits;
    this.#removed = removed;
    this.#bindings = bindings;
    this.#alarm = alarm;
    this.#indexBatch = new IndexBatch(storage, bindings, (entry, error) => this.#attemptFailed(entry, error));
  }

  get #env(): Env {
    return this.#bindings();
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  /**
   * Delivers what is due (what was just written), now, leaving the alarm set for whatever is left. Every
   * part calls it after its write; a pass that removes the session stops its runs itself (`removed`).
   * With `heldToo` (a run listed as running) the index writes its start held go in the same batch.
   */
  async flush(heldToo = false): Promise<void> {
    await this.#flushWith((entries) => this.#pass(entries, heldToo));
  }

  /**
   * The handoffs due now (turns, posts, notices: someone waits for them) without the index writes, which
   * a run started now writes with its end's, in one batch (SPEC §24).
   */
  async flushHandoffs(): Promise<void> {
    await this.#flushWith((entries) => this.#pass(entries, false, true), true);
  }

  async #flushWith(
    pass: (entries: readonly OutboxEntry[]) => Promise<PassOutcome>,
    handoffsOnly = false,
  ): Promise<void> {
    const now = Date.now();
    const taken = leaseDueEntries(this.#sql, now, now + INLINE_LEASE_MS, handoffsOnly);
    // No handoff owed (a chat turn's usual case): nothing leased, so the alarm stands as it was.
    if (handoffsOnly && taken.length === 0) return;
    await this.#alarm.rearm();
    await pass(dueEntries(this.#sql, now, taken));
    await this.#alarm.rearm();
  }

  /**
   * Delivers the index writes due now and those a run's start held, and waits for those another pass is
   * delivering: what a caller answered with a run it waited for needs (the run found by its id). Handoffs
   * are left to the pass after the run; whatever fails here is retried by the alarm, set for its retry time.
   */
  async flushIndexWrites(): Promise<void> {
    await this.#deliverIndexWrites(heldIndexEntries(this.#sql, Date.now()));
    await Promise.allSettled(this.#indexWrites);
    await this.#alarm.rearm();
  }

  /**
   * One pass over every entry due now (the alarm's); failures wait for their retry time. With `heldToo`
   * (a run's end, the alarm's last pass) the index writes a run's start held (`holdIndexWrites`) go in
   * the same batch as the rest, one D1 round trip for the turn.
   */
  async deliver(heldToo = false): Promise<void> {
    const now = Date.now();
    pruneDeliveries(this.#sql, now);
    await this.#pass(dueEntries(this.#sql, now), heldToo);
  }

  /** A pass that left the session removed stops the runs executing here (they must not write on). */
  async #pass(entries: readonly OutboxEntry[], heldToo = false, handoffsOnly = false): Promise<PassOutcome> {
    const outcome = await this.#passOver(entries, heldToo, handoffsOnly);
    if (outcome === "removed") this.#removed();
    return outcome;
  }

  /**
   * Handoffs first (turns, posts, notices: someone waits for them), then every index write due, in one
   * D1 batch, those the handoffs owed included: a completion does not wait behind a D1 round trip.
   */
  async #passOver(
    entries: readonly OutboxEntry[],
    heldToo = false,
    handoffsOnly = false,
  ): Promise<PassOutcome> {
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
    if (handoffsOnly) return "delivered";
    // This pass's own index entries as they are now (a newer change may have replaced one meanwhile),
    // and those the handoffs owed since.
    const ids = new Set(entries.map((entry) => entry.id));
    const now = Date.now();
    const owed = (heldToo ? heldIndexEntries(this.#sql, now) : dueEntries(this.#sql, now)).filter(
      (entry) => !ids.has(entry.id),
    );
    await this.#deliverIndexWrites([...dueEntries(this.#sql, now, [...ids]), ...owed]);
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
        // What a collector child is owed (its result to its requester, or a member's release or kill)
        // goes out before the storage does (each is retried until settled, 30 minutes at most).
        if (hasOutboxKind(this.#sql, "collector_result") || hasOutboxKind(this.#sql, "collector_release"))
          throw new Error("a collector handoff is still owed");
        const shard = keyShard(indexShards(env), entry.payload.sessionKey);
        await deleteSessionIndex(shard, entry.payload.sessionKey, entry.payload.version);
        const record = readRecord(this.#sql);
        const deletedAt = record?.deletedAt;
        if (record === undefined || deletedAt === undefined) return "delivered";
        // Its ledger and its runs go with its storage: the index keeps no record the session cannot answer
        // for (SPEC §23 "Deletion deletes"); its search rows went with its index row (a D1 trigger).
        await deleteSessionDeliveries(shard, entry.payload.sessionKey, deletedAt);
        // A sub-agent's run rows stay (no text: a runId and a key): they are its requester's record that
        // the spawn was made, so a repeat of it (its idempotencyKey) creates nothing even once the child is
        // gone; the maintenance pass prunes them after runRetention (SPEC §23 "Every table bounded").
        if (record.spawnedBy === undefined)
          await deleteSessionRuns(shard, entry.payload.sessionKey, deletedAt);
        // The one thing kept: its last stateVersion, for the key's next session (SPEC §23 "Generations").
        if (record.stateVersion)
          await writeStateFloor(shard, entry.payload.sessionKey, record.stateVersion, deletedAt);
        // Its grants die with it: their tokens answer 401 as any revoked grant's.
        await deleteSessionGrants(env.DB, record);
        return "wipe";
      }
      case "turn": {
        if (entry.payload.viaQueue) {
          const message = queuedSend(entry.payload);
          await deliveryQueue(env, message).send(message, { contentType: "json" });
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
        const message = { ...entry.payload, ...(deliveryId ? { deliveryId } : {}) };
        await deliveryQueue(env, message).send(message, { contentType: "json" });
        return "handed_off";
      }
      case "webhook": {
        const attempt = await postSignedWebhook(env, sessionConfig(env), entry.payload);
        if (attempt.outcome === "retry") throw new Error(attempt.error);
        if (attempt.outcome === "delivered") return "delivered";
        markFailed(this.#sql, byOutboxKey(entry.key), attempt.error);
        return "settled";
      }
      case "steer_notice":
        await postSteerNotice(env, sessionConfig(env), entry.payload);
        return "delivered";
      case "remove_session":
        return "remove_session";
      case "collector_release":
      case "collector_result":
        return deliverCollectorEntry(env, this.#sql, entry, this.#wakeCollectorWaits);
      case "child_created": {
        // Noted whether or not the parent was ever written: its children exist either way. With the
        // spawn's run, which the parent records with the child (and its child_spawned event) in one write.
        // The parent's session this child was spawned for, when bound at spawn: a session created again
        // under that key since then does not note it (SPEC §23 generations).
        const parentId = readRecord(this.#sql)?.spawnedById;
        const noted = await sessionApi(env.SESSION, entry.payload.parentKey).childCreated(
          entry.payload.childKey,
          entry.payload.runId,
          parentId,
        );
        // The child belongs to the parent's session it answered with, not to its key (SPEC §23).
        if (noted.ok && noted.value.sessionId)
          this.#storage.transactionSync(() => bindToParent(this.#sql, noted.value.sessionId ?? ""));
        return "delivered";
      }
      case "agent_usage": {
        const { agentId, ...report } = entry.payload;
        await agentApi(env, agentId).recordUsage(report);
        return "delivered";
      }
      case "cron_run_end":
        await agentApi(env, entry.payload.agentId).cronRunEnded(entry.payload);
        return "delivered";
      case "unwatch":
        // A target gone already has no cursor to drop (nothing found is as good as removed).
        await sessionApi(env.SESSION, entry.payload.targetKey).unwatch(
          entry.payload.watcherKey,
          entry.payload.before,
        );
        return "delivered";
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

  /** The due index writes in one D1 batch (IndexBatch), each left to whichever pass took it first. */
  async #deliverIndexWrites(due: readonly OutboxEntry[]): Promise<void> {
    const entries = due.filter(isIndexWrite).filter((entry) => !this.#delivering.has(entry.id));
    if (entries.length === 0) return;
    for (const entry of entries) this.#delivering.add(entry.id);
    const written = this.#indexBatch.write(entries).finally(() => {
      for (const entry of entries) this.#delivering.delete(entry.id);
      this.#indexWrites.delete(written);
    });
    this.#indexWrites.add(written);
    await written;
  }

  /** The session deletes itself, then delivers that (its index row goes, then its storage). */
  async #removeSession(): Promise<PassOutcome> {
    if (readRecord(this.#sql)?.deletedAt === undefined)
      this.#storage.transactionSync(() => writeDeletion(this.#sql, Date.now()));
    // The pass this one is part of tells the object, once.
    await this.#flushWith((entries) => this.#passOver(entries));
    return "removed";
  }

  /**
   * The index no longer points here: drop everything, the schema too (SPEC §23: nothing left behind). The
   * object creates its schema again only when it is next used (session-object.ts `#use`).
   */
  async #wipe(): Promise<void> {
    await this.#storage.deleteAlarm();
    await this.#storage.deleteAll();
    forgetRecord(this.#sql);
    this.#alarm.storageWiped(true);
    this.#wiped();
  }
}
