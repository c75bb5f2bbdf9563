import { DurableObject } from "cloudflare:workers";
import { loadConfig } from "../config/load";
import type { SwitchboardConfig } from "../config/schema";
import { deleteSessionIndex, upsertSessionIndex } from "../index-db/write";
import type { TranscriptMessage } from "../transcript/message";
import { indexColumns } from "./index-row";
import { type DeliveryContext, type MetaChanges, readMeta, type SessionMeta, updateMeta } from "./meta";
import { applySessionMigrations } from "./migrations";
import {
  deferEffect,
  enqueueEffect,
  nextOutboxAttempt,
  type OutboxEntry,
  pendingEffects,
  settleEffect,
} from "./outbox";
import { type SessionRow, toSessionRow } from "./row";
import {
  appendMessages,
  type HistoryPage,
  type HistoryRequest,
  messageCounts,
  readExportChunk,
  readHistoryPage,
  readRecentMessages,
} from "./transcript";

export type StoreResult<T> =
  | { ok: true; value: T }
  | { ok: false; code: "not_found" | "conflict"; message: string };

export interface CreateSessionInit {
  sessionKey: string;
  agentId: string;
  label?: string;
  displayName?: string;
  subject?: string;
  channel?: string;
  chatType?: "direct" | "group" | "channel";
  deliveryContext?: DeliveryContext;
  spawnedBy?: string;
  parentSessionKey?: string;
  spawnDepth?: number;
}

export type SessionPatch = Pick<
  MetaChanges,
  "label" | "displayName" | "sendPolicy" | "modelOverride" | "thinkingLevel"
>;

export interface ImportReceipt {
  imported: number;
  skipped: number;
  totalMessages: number;
}

// If the object is evicted between a write and its inline index update, this alarm finishes the job.
const OUTBOX_SAFETY_DELAY_MS = 5000;

/** One session: its record, its transcript (one row per message) and its outbox, in SQLite. */
export class SessionObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    void ctx.blockConcurrencyWhile(async () => applySessionMigrations(this.#sql));
  }

  #config(): SwitchboardConfig {
    const loaded = loadConfig(this.env);
    if (!loaded.ok) throw new Error(loaded.error);
    return loaded.config;
  }

  #liveMeta(): SessionMeta | undefined {
    const meta = readMeta(this.#sql);
    return meta && meta.deletedAt === undefined ? meta : undefined;
  }

  #row(meta: SessionMeta): SessionRow {
    const config = this.#config();
    return toSessionRow(indexColumns(meta, config), {
      mainKey: config.session.mainKey,
      scope: config.session.scope,
    });
  }

  #notFound<T>(): StoreResult<T> {
    return { ok: false, code: "not_found", message: "session not found" };
  }

  /** Creates the session; a live session under the same key is a conflict. */
  async create(init: CreateSessionInit): Promise<StoreResult<SessionRow>> {
    if (this.#liveMeta())
      return { ok: false, code: "conflict", message: `session ${init.sessionKey} already exists` };
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      // A deleted session whose index removal is still pending is replaced outright.
      this.#sql.exec("DELETE FROM session; DELETE FROM message; DELETE FROM outbox;");
      this.#sql.exec(
        `INSERT INTO session (id, session_key, session_id, agent_id, recorded_channel, chat_type, label, display_name,
           subject, created_at, updated_at, spawned_by, parent_session_key, spawn_depth, delivery_context, version)
         VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        init.sessionKey,
        crypto.randomUUID(),
        init.agentId,
        init.channel ?? init.deliveryContext?.channel ?? null,
        init.chatType ?? null,
        init.label ?? null,
        init.displayName ?? null,
        init.subject ?? null,
        now,
        now,
        init.spawnedBy ?? null,
        init.parentSessionKey ?? init.spawnedBy ?? null,
        init.spawnDepth ?? 0,
        init.deliveryContext ? JSON.stringify(init.deliveryContext) : null,
        now,
      );
      this.#enqueueIndexSync();
    });
    await this.#deliverEffects();
    return this.describe();
  }

  /** The session as callers see it. */
  async describe(): Promise<StoreResult<SessionRow>> {
    const meta = this.#liveMeta();
    return meta ? { ok: true, value: this.#row(meta) } : this.#notFound();
  }

  /** Changes operator-settable fields; null clears one. */
  async patch(changes: SessionPatch): Promise<StoreResult<SessionRow>> {
    if (!this.#liveMeta()) return this.#notFound();
    this.ctx.storage.transactionSync(() => {
      updateMeta(this.#sql, changes);
      this.#enqueueIndexSync();
    });
    await this.#deliverEffects();
    return this.describe();
  }

  /** Deletes the session: hidden at once, storage wiped once its index row is gone. */
  async remove(): Promise<StoreResult<{ deleted: true }>> {
    const meta = this.#liveMeta();
    if (!meta) return this.#notFound();
    this.ctx.storage.transactionSync(() => {
      updateMeta(this.#sql, { deletedAt: Date.now() });
      const version = readMeta(this.#sql)?.version ?? meta.version + 1;
      enqueueEffect(this.#sql, "index_delete", "index", { sessionKey: meta.sessionKey, version });
      this.#armAlarm();
    });
    await this.#deliverEffects();
    return { ok: true, value: { deleted: true } };
  }

  /** Imports messages as they are, in order; ids already stored are skipped (idempotent). */
  async importMessages(messages: TranscriptMessage[]): Promise<StoreResult<ImportReceipt>> {
    const meta = this.#liveMeta();
    if (!meta) return this.#notFound();
    const receipt = this.ctx.storage.transactionSync((): ImportReceipt => {
      const hadMessages = messageCounts(this.#sql).all > 0;
      const appended = appendMessages(this.#sql, messages, meta.firstUserText !== undefined);
      if (appended.imported > 0) {
        const newest = Math.min(appended.newestTimestamp ?? meta.updatedAt, Date.now());
        updateMeta(this.#sql, {
          // updatedAt is the last activity: the newest message, which for an import may lie in the past.
          updatedAt: hadMessages ? Math.max(meta.updatedAt, newest) : newest,
          ...(appended.firstUserText !== undefined ? { firstUserText: appended.firstUserText } : {}),
          ...(appended.lastMessagePreview !== undefined
            ? { lastMessagePreview: appended.lastMessagePreview }
            : {}),
        });
        this.#enqueueIndexSync();
      }
      return {
        imported: appended.imported,
        skipped: appended.skipped,
        totalMessages: messageCounts(this.#sql).all,
      };
    });
    await this.#deliverEffects();
    return { ok: true, value: receipt };
  }

  /** A page of safe history (SPEC §5.2). */
  async history(request: HistoryRequest): Promise<StoreResult<HistoryPage>> {
    if (!this.#liveMeta()) return this.#notFound();
    return { ok: true, value: readHistoryPage(this.#sql, request) };
  }

  /** The last `count` non-tool messages, made safe, for list rows. */
  async recentMessages(count: number): Promise<TranscriptMessage[]> {
    return this.#liveMeta() ? readRecentMessages(this.#sql, count) : [];
  }

  /** A chunk of the exact JSONL export. */
  async exportChunk(
    afterSeq: number,
    limit: number,
  ): Promise<StoreResult<{ lines: string[]; lastSeq: number }>> {
    if (!this.#liveMeta()) return this.#notFound();
    return { ok: true, value: readExportChunk(this.#sql, afterSeq, limit) };
  }

  override async alarm(): Promise<void> {
    await this.#deliverEffects();
  }

  #enqueueIndexSync(): void {
    const version = readMeta(this.#sql)?.version ?? 0;
    enqueueEffect(this.#sql, "index_sync", "index", { version });
    this.#armAlarm();
  }

  /** Arms the alarm as a safety net in the same transaction as the write it protects. */
  #armAlarm(): void {
    const next = nextOutboxAttempt(this.#sql);
    if (next !== undefined)
      void this.ctx.storage.setAlarm(Math.max(next, Date.now()) + OUTBOX_SAFETY_DELAY_MS);
  }

  /** Delivers every pending effect; failures stay in the outbox with a backoff and an alarm. */
  async #deliverEffects(): Promise<void> {
    for (const entry of pendingEffects(this.#sql)) {
      try {
        await this.#deliver(entry);
        settleEffect(this.#sql, entry);
      } catch (cause) {
        deferEffect(this.#sql, entry, cause instanceof Error ? cause.message : String(cause));
        console.warn(`session outbox: ${entry.kind} failed (attempt ${entry.attempts + 1}), will retry`);
      }
    }
    const next = nextOutboxAttempt(this.#sql);
    if (next === undefined) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(next);
  }

  async #deliver(entry: OutboxEntry): Promise<void> {
    if (entry.kind === "index_sync") {
      const meta = readMeta(this.#sql);
      if (!meta || meta.deletedAt !== undefined) return;
      await upsertSessionIndex(this.env.DB, indexColumns(meta, this.#config()));
      return;
    }
    const { sessionKey, version } = JSON.parse(entry.payload) as { sessionKey: string; version: number };
    await deleteSessionIndex(this.env.DB, sessionKey, version);
    if (readMeta(this.#sql)?.deletedAt === undefined) return;
    // The index no longer points here: drop everything, then restore the empty schema for reuse.
    await this.ctx.storage.deleteAll();
    applySessionMigrations(this.#sql);
  }
}
