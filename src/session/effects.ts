import type { SwitchboardConfig } from "../config/schema";
import { deleteSessionIndex, runIndexInsert, sessionIndexUpsert } from "../index-db/write";
import type { OutboundMessage } from "../queue/messages";
import type { Completion } from "../subagents/completion";
import { sessionApi } from "./client";
import { indexColumns } from "./index-row";
import type { SessionMeta } from "./meta";
import type { OutboxEntry } from "./outbox";
import type { TurnRequest } from "./run-store";

interface CompletionEffect {
  targets: string[];
  turnRunId: string;
  completion: Completion;
  silent: boolean;
  cleanup: boolean;
}

/** Hands a completion to the first session of the lineage that still exists (SPEC §5.4). */
async function deliverCompletion(
  env: Env,
  targets: string[],
  turnRunId: string,
  completion: Completion,
): Promise<void> {
  for (const target of targets) {
    const result = await sessionApi(env.SESSION, target).deliverCompletion(turnRunId, completion);
    if (result.ok) return;
  }
  console.warn(
    `completion of ${completion.childKey} run ${completion.runId}: no requester left to receive it`,
  );
}

export interface EffectHost {
  env: Env;
  config: SwitchboardConfig;
  /** The session's current record, including a deleted one's tombstone. */
  meta: SessionMeta | undefined;
}

/** What the object must do after an effect was delivered. */
export type EffectResult = "done" | "wipe" | "remove";

/** The effects that are one D1 write each, so that a pass can send them together in one batch. */
export const isIndexWrite = (entry: OutboxEntry): boolean =>
  entry.kind === "index_sync" || entry.kind === "run_index";

/** The D1 write of an index effect; none for a deleted session's index sync (its delete follows). */
export function indexWrite(host: EffectHost, entry: OutboxEntry): D1PreparedStatement[] {
  const { env, meta } = host;
  if (entry.kind === "index_sync")
    return meta && meta.deletedAt === undefined
      ? [sessionIndexUpsert(env.DB, indexColumns(meta, host.config))]
      : [];
  const payload = JSON.parse(entry.payload) as Record<string, unknown>;
  return [
    runIndexInsert(env.DB, {
      runId: String(payload.runId),
      sessionKey: String(payload.sessionKey),
      createdAt: Number(payload.createdAt),
    }),
  ];
}

/** Delivers one outbox entry; throws to have it retried. Receivers deduplicate, so a retry is safe. */
export async function deliverEffect(host: EffectHost, entry: OutboxEntry): Promise<EffectResult> {
  const { env, meta } = host;
  const payload = JSON.parse(entry.payload) as Record<string, unknown>;
  switch (entry.kind) {
    case "index_sync":
    case "run_index":
      for (const statement of indexWrite(host, entry)) await statement.run();
      return "done";
    case "index_delete":
      await deleteSessionIndex(env.DB, String(payload.sessionKey), Number(payload.version));
      return meta?.deletedAt !== undefined ? "wipe" : "done";
    case "turn": {
      const target = String(payload.sessionKey);
      const result = await sessionApi(env.SESSION, target).enqueueTurn(payload.request as TurnRequest);
      // A session deleted meanwhile cannot take the turn; there is nobody left to tell.
      if (!result.ok) console.warn(`turn for ${target} dropped: ${result.message}`);
      return "done";
    }
    case "completion": {
      const { targets, turnRunId, completion, silent, cleanup } = payload as unknown as CompletionEffect;
      if (!silent) await deliverCompletion(env, targets, turnRunId, completion);
      // Deleting a `cleanup: "delete"` child waits for its completion to be in the requester's hands.
      return cleanup ? "remove" : "done";
    }
    case "deliver":
      await env.DELIVERIES.send(payload as unknown as OutboundMessage, { contentType: "json" });
      return "done";
  }
}
