/** Erasure (SPEC §23): the types crossing the session object's face for `?erase=true` and `POST /v1/erase`. */

/** What an erased session's text touched, read from its own storage before it is deleted. */
export interface ErasurePlan {
  sessionKey: string;
  /** Sessions that may hold copies of its text: sent to, exchanged with, its requester and ancestors. */
  partners: string[];
  /** The sessions it spawned: erased likewise. */
  children: string[];
  /**
   * False for a key never created as a session whose object holds only what it sent as a requester:
   * its deletion removes those `sent` records (`sentRecords`) and counts no session.
   */
  exists: boolean;
  /** The `sent` records its own storage holds (deleted with it). */
  sentRecords: number;
  /** Its words (user and assistant texts, the newest first, capped): quotes of them are erased elsewhere. */
  texts: string[];
}

/** Whose copies a session erases from its own storage. */
export interface ErasureRequest {
  /** The session being erased, named in the `erased` event (never its text). */
  subjectKey: string;
  /** Messages routed from these sessions (their provenance's `sourceSessionKey`) are erased. */
  sourceKeys: string[];
  /** And messages this person said on this channel (a group's provenance `senderId`). */
  sender?: { channel: string; senderId: string };
  /** Exact texts whose quotes are erased here (tool results, the summary, entries owed). */
  texts?: string[];
}

/** What one session's erasure changed. */
export interface ErasureAnswer {
  /** Every matching message, erased now or by an earlier pass: their search rows go by id. */
  messageIds: string[];
  /** Messages replaced by `[erased]` now. */
  messages: number;
  /** `sent` records whose turn text was dropped. */
  sent: number;
  /** Watchers and owed watch notices of the erased sessions removed. */
  notices: number;
  /** Messages (tool results, replies) whose exact quotes of the erased text were replaced. */
  quotes: number;
  /** Compaction summaries dropped (built from an erased message) or with quotes replaced. */
  summaries: number;
  /** Entries still owed (outbox) and kept delivery payloads whose quotes were replaced. */
  pending: number;
}
