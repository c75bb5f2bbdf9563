import type { SwitchboardConfig } from "../config/schema";
import { deleteSessionIndex, upsertSessionIndex } from "../index-db/write";
import type { OutboundMessage } from "../queue/messages";
import { sessionApi } from "./client";
import { indexColumns } from "./index-row";
import type { SessionMeta } from "./meta";
import type { OutboxEntry } from "./outbox";
import type { TurnRequest } from "./run-store";

export interface EffectHost {
  env: Env;
  config: SwitchboardConfig;
  /** The session's current record, including a deleted one's tombstone. */
  meta: SessionMeta | undefined;
}

/** What the object must do after an effect was delivered. */
export type EffectResult = "done" | "wipe";

/** Delivers one outbox entry; throws to have it retried. Receivers deduplicate, so a retry is safe. */
export async function deliverEffect(host: EffectHost, entry: OutboxEntry): Promise<EffectResult> {
  const { env, meta } = host;
  const payload = JSON.parse(entry.payload) as Record<string, unknown>;
  switch (entry.kind) {
    case "index_sync":
      if (meta && meta.deletedAt === undefined)
        await upsertSessionIndex(env.DB, indexColumns(meta, host.config));
      return "done";
    case "index_delete":
      await deleteSessionIndex(env.DB, String(payload.sessionKey), Number(payload.version));
      return meta?.deletedAt !== undefined ? "wipe" : "done";
    case "run_index":
      await env.DB.prepare(
        "INSERT OR IGNORE INTO run_index (run_id, session_key, created_at) VALUES (?, ?, ?)",
      )
        .bind(String(payload.runId), String(payload.sessionKey), Number(payload.createdAt))
        .run();
      return "done";
    case "turn": {
      const target = String(payload.sessionKey);
      const result = await sessionApi(env.SESSION, target).enqueueTurn(payload.request as TurnRequest);
      // A session deleted meanwhile cannot take the turn; there is nobody left to tell.
      if (!result.ok) console.warn(`turn for ${target} dropped: ${result.message}`);
      return "done";
    }
    case "deliver":
      await env.DELIVERIES.send(payload as unknown as OutboundMessage, { contentType: "json" });
      return "done";
  }
}
