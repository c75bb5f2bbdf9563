import { forgetMeta } from "./meta";
import type { CreateSessionInit } from "./types";

/** Writes a new session record, replacing whatever a deleted session left behind. */
export function insertSession(sql: SqlStorage, init: CreateSessionInit, now: number): void {
  // A deleted session whose index removal is still pending is replaced outright. Its version only
  // grows, so the new record never shares one with the old (index upserts and readMeta rely on it).
  const previous = sql.exec<{ version: number }>("SELECT version FROM session WHERE id = 1").toArray()[0];
  const version = Math.max(now, (previous?.version ?? 0) + 1);
  forgetMeta(sql);
  sql.exec(
    "DELETE FROM session; DELETE FROM message; DELETE FROM outbox; DELETE FROM run; DELETE FROM attachment; DELETE FROM steer;",
  );
  sql.exec(
    `INSERT INTO session (id, session_key, session_id, agent_id, recorded_channel, chat_type, label, display_name,
       subject, created_at, updated_at, spawned_by, parent_session_key, spawn_depth, delivery_context, version,
       spawn, lineage, model_override, thinking_level)
     VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    version,
    init.spawn ? JSON.stringify(init.spawn) : null,
    init.lineage ? JSON.stringify(init.lineage) : null,
    init.modelOverride ?? null,
    init.thinkingLevel ?? null,
  );
  for (const file of init.attachments ?? []) {
    sql.exec(
      "INSERT INTO attachment (name, mime_type, encoding, bytes, size, sha256) VALUES (?, ?, ?, ?, ?, ?)",
      file.name,
      file.mimeType ?? null,
      file.encoding,
      file.bytes,
      file.bytes.byteLength,
      file.sha256,
    );
  }
}
