import { maintenancePolicy } from "../../config/agents";
import { keyOptionsOf } from "../../config/key-options";
import type { SwitchboardConfig } from "../../config/schema";
import { deliveryIndexDelete, deliveryIndexUpsert } from "../../index-db/deliveries";
import { searchRowsForget } from "../../index-db/search-write";
import { indexShards, keyShard } from "../../index-db/shards";
import { runIndexInsert, sessionIndexUpsert } from "../../index-db/write";
import { parseSessionKey } from "../../keys";
import { sessionConfig } from "../config";
import { type IndexRow, indexRow, reportedBytes } from "../record/index-row";
import { readRecord, type SessionRecord } from "../record/record";
import { indexedDelivery } from "../store/delivery-ledger";
import { landedIndexRow, recordLandedIndexRow } from "../store/index-landed";
import { type IndexWrite, settleEntry } from "../store/outbox-store";
import { type SearchChunk, searchChunkWritten, searchIndexChunk } from "../transcript/search-index";
import { keptMessages } from "../transcript/trim";

/**
 * The outbox's index writes (session row, run index, delivery records, search chunks) in one D1 batch:
 * one round trip and one transaction instead of one each. If the batch fails, nothing of it was
 * written: each is then tried on its own, so one bad write cannot hold the others back, and a failed
 * one waits for its retry (`failed`, the outbox's schedule).
 */
export class IndexBatch {
  readonly #storage: DurableObjectStorage;
  readonly #bindings: () => Env;
  readonly #failed: (entry: IndexWrite, error: string) => void;
  /** The search index chunk each search entry being written carries, by entry id, until it lands. */
  readonly #searchChunks = new Map<number, SearchChunk>();
  /** The index row each index sync being written carries, by entry id: kept as landed once it lands. */
  readonly #rows = new Map<number, IndexRow>();

  constructor(
    storage: DurableObjectStorage,
    bindings: () => Env,
    failed: (entry: IndexWrite, error: string) => void,
  ) {
    this.#storage = storage;
    this.#bindings = bindings;
    this.#failed = failed;
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  /** Writes the entries (none being delivered by another pass); each is settled, re-owed or failed. */
  async write(entries: readonly IndexWrite[]): Promise<void> {
    // Search rows last: they require the session's index row, which this batch may be writing first.
    const ordered = [...entries].sort(
      (a, b) => Number(a.kind === "search_index") - Number(b.kind === "search_index"),
    );
    const db = this.#shard(entries);
    if (!db) {
      // Never guessed: a write to another shard would be lost to every read. Retried on its schedule.
      for (const entry of entries) this.#failed(entry, "the session's index shard is not known yet");
      return;
    }
    try {
      const written = ordered.map((entry) => ({ entry, statements: this.#statements(entry, db) }));
      const statements = written.flatMap((write) => write.statements);
      const results = statements.length > 0 ? await db.batch(statements) : [];
      let next = 0;
      for (const { entry, statements } of written) {
        next += statements.length;
        this.#landed(entry, results[next - 1]);
      }
    } catch (cause) {
      console.warn(`session outbox: batched index writes failed, writing one by one: ${String(cause)}`);
      // In the same order: a search chunk writes only once its session's index row is there, so it
      // waits for its retry when that row's write failed.
      let rowFailed = false;
      for (const entry of ordered) {
        try {
          if (rowFailed && entry.kind === "search_index")
            throw new Error("the session's index row is not written");
          let last: D1Result | undefined;
          for (const statement of this.#statements(entry, db)) last = await statement.run();
          this.#landed(entry, last);
        } catch (failure) {
          if (entry.kind === "index_sync") rowFailed = true;
          this.#failed(entry, String(failure));
        }
      }
    } finally {
      for (const entry of entries) {
        this.#searchChunks.delete(entry.id);
        this.#rows.delete(entry.id);
      }
    }
  }

  /**
   * This session's index shard (its agent's, src/index-db/shards.ts): every entry is this session's, so
   * one shard takes the whole batch. With one shard, no record read to find it; undefined when neither
   * the record nor a run entry names the session.
   */
  #shard(entries: readonly IndexWrite[]): D1Database | undefined {
    const shards = indexShards(this.#bindings());
    if (shards.length === 1) return shards[0];
    const run = entries.find((entry) => entry.kind === "run_index");
    const sessionKey = readRecord(this.#sql)?.sessionKey ?? run?.payload.sessionKey;
    return sessionKey === undefined ? undefined : keyShard(shards, sessionKey);
  }

  /** The D1 write of an index entry; none for a deleted session's index sync (its delete follows). */
  #statements(entry: IndexWrite, db: D1Database): D1PreparedStatement[] {
    const env = this.#bindings();
    if (entry.kind === "run_index") return [runIndexInsert(db, entry.payload)];
    if (entry.kind === "search_index") {
      const chunk = searchIndexChunk(
        this.#sql,
        db,
        searchKeptFrom(sessionConfig(env), readRecord(this.#sql)),
      );
      this.#searchChunks.set(entry.id, chunk);
      return chunk.statements;
    }
    if (entry.kind === "delivery_index") {
      const { deliveryId } = entry.payload;
      const delivery = indexedDelivery(this.#sql, deliveryId);
      return [delivery ? deliveryIndexUpsert(db, delivery) : deliveryIndexDelete(db, deliveryId)];
    }
    const record = readRecord(this.#sql);
    if (!record || record.deletedAt !== undefined) return [];
    if (entry.kind === "search_forget")
      return [searchRowsForget(db, record.sessionId, entry.payload.messageIds)];
    // The object's size and message count ride along (SPEC §23 storage report: no fan-out to objects).
    const sizes = {
      object_bytes: reportedBytes(this.#sql.databaseSize),
      message_count: keptMessages(this.#sql),
    };
    const row = { ...indexRow(record, sessionConfig(env)), ...sizes };
    // Only what changed since the last write that landed (SPEC §24); nothing when nothing did.
    const upsert = sessionIndexUpsert(db, row, landedIndexRow(this.#sql));
    if (!upsert) return [];
    this.#rows.set(entry.id, row);
    return [upsert];
  }

  /**
   * An index write landed (`last`: its last statement's result): settled, except a search chunk with a
   * backlog behind it (owed again now), and one whose session row was not there (its inserts wrote
   * nothing): that one failed, and is retried once the row's own write has landed.
   */
  #landed(entry: IndexWrite, last: D1Result | undefined): void {
    const chunk = this.#searchChunks.get(entry.id);
    const present = (last?.results[0] as { present?: number } | undefined)?.present;
    if (chunk && chunk.statements.length > 0 && present !== 1) {
      this.#failed(entry, "the session's index row is not written yet");
      return;
    }
    const row = this.#rows.get(entry.id);
    if (row) recordLandedIndexRow(this.#sql, row);
    const owedAgain =
      chunk !== undefined && this.#storage.transactionSync(() => searchChunkWritten(this.#sql, chunk));
    if (!owedAgain) settleEntry(this.#sql, entry);
  }
}

/** The time before which a message is past its session's searchRetention (enforced only), if any. */
function searchKeptFrom(config: SwitchboardConfig, record: SessionRecord | undefined): number | undefined {
  if (!record) return undefined;
  const kind = parseSessionKey(record.sessionKey, keyOptionsOf(config))?.kind ?? "other";
  const policy = maintenancePolicy(config, record.agentId, kind);
  if (policy.mode !== "enforce" || policy.searchRetentionMs === undefined) return undefined;
  return Date.now() - policy.searchRetentionMs;
}
