import { descendants } from "../index-db/children";
import { deleteSearchRows, directSessionsOf, optimizeSearch, sharedSessionsOf } from "../index-db/erasure";
import { type IndexShards, readShards } from "../index-db/shards";
import type { ErasureAnswer, ErasurePlan, ErasureRequest, Result } from "../session/api";
import { sessionApi } from "../session/client";

// Erasure (SPEC §23): a session deleted together with every copy of its text in other sessions.
//
// Resumable by order and idempotence, with no job table: the erased session's own storage is the plan
// (who it sent to, exchanged with, was spawned by, spawned), so it is deleted last. Each other session
// erases its copies in one transaction of its own (keeping each erased row's provenance, so a repeat
// finds the same rows and changes nothing), then their search rows go by id; the children are deleted
// after that, deepest first, and the session itself last. A Worker that dies half-way leaves the
// session in place: asking again reads the same plan and finishes it.

/** What an erasure removed, per store (the answer of `?erase=true` and `POST /v1/erase`). */
export interface ErasedCounts {
  /** Sessions deleted by the request (not counting their children). */
  sessions: number;
  /** Messages in other sessions' transcripts (and held group context) replaced by `[erased]`. */
  messages: number;
  /** Their search rows deleted. */
  searchRows: number;
  /** Descendant sessions erased and deleted. */
  children: number;
  /**
   * `sent` records in other sessions whose turn text was dropped, and those a requester never created
   * as a session held (deleted with its storage).
   */
  sent: number;
  /** Watchers of other sessions (and the notices owed them) removed. */
  notices: number;
  /** Messages in other sessions (tool results, replies) whose exact quotes of the text were replaced. */
  quotes: number;
  /** Other sessions' compaction summaries dropped (built from an erased message) or with quotes replaced. */
  summaries: number;
  /** Entries other sessions still owed (queued sends, posts) and kept delivery payloads rewritten. */
  pending: number;
}

type SessionNamespace = Env["SESSION"];

/** Most sessions one erasure reaches (the session and its descendants). */
const MAX_SUBJECTS = 1000;

export function noCounts(): ErasedCounts {
  return {
    sessions: 0,
    messages: 0,
    searchRows: 0,
    children: 0,
    sent: 0,
    notices: 0,
    quotes: 0,
    summaries: 0,
    pending: 0,
  };
}

function unwrap<T>(result: Result<T>, what: string): T {
  if (!result.ok) throw new Error(`${what}: ${result.message}`);
  return result.value;
}

/** Erases one session's copies held in `partner` and their search rows. */
async function eraseIn(
  namespace: SessionNamespace,
  shards: IndexShards,
  partner: string,
  request: ErasureRequest,
  counts: ErasedCounts,
): Promise<void> {
  const answer: ErasureAnswer = unwrap(
    await sessionApi(namespace, partner).eraseCopies(request),
    `erasing in ${partner}`,
  );
  counts.messages += answer.messages;
  counts.sent += answer.sent;
  counts.notices += answer.notices;
  counts.quotes += answer.quotes;
  counts.summaries += answer.summaries;
  counts.pending += answer.pending;
  counts.searchRows += await deleteSearchRows(shards, partner, answer.messageIds);
}

/** The session and its descendants (their own child tables, and the index), each with its plan. */
async function subjectsOf(
  namespace: SessionNamespace,
  shards: IndexShards,
  sessionKey: string,
): Promise<{ plans: Map<string, ErasurePlan>; complete: boolean }> {
  const plans = new Map<string, ErasurePlan>();
  const queue = [sessionKey, ...(await descendants(shards, sessionKey)).map((child) => child.sessionKey)];
  while (queue.length > 0 && plans.size < MAX_SUBJECTS) {
    const key = queue.shift() as string;
    if (plans.has(key)) continue;
    const read = await sessionApi(namespace, key).erasurePlan(key);
    // Gone already (a repeat after it was erased, a child deleted meanwhile): nothing of it to read.
    if (!read.ok && read.code === "not_found") continue;
    const plan = unwrap(read, `reading ${key}`);
    plans.set(key, plan);
    queue.push(...plan.children);
  }
  return { plans, complete: queue.every((key) => plans.has(key)) };
}

/**
 * `DELETE /v1/sessions/{key}?erase=true`: the session, its descendants and the copies of their text
 * elsewhere. Not found (and nothing erased) when no such session is live.
 */
export async function eraseSession(
  env: Env,
  sessionKey: string,
  options: { optimize?: boolean } = {},
): Promise<Result<{ deleted: true; erased: ErasedCounts }>> {
  const shards = readShards(env);
  const counts = noCounts();
  const { plans, complete } = await subjectsOf(env.SESSION, shards, sessionKey);
  const subjects = [...plans.keys()];
  const inSubjects = new Set(subjects);
  const partners = new Set([...plans.values()].flatMap((plan) => plan.partners));
  // Their words, whose exact quotes each partner looks for (capped per session: ErasurePlan.texts).
  const texts = [...plans.values()].flatMap((plan) => plan.texts);
  for (const partner of partners) {
    if (inSubjects.has(partner)) continue;
    await eraseIn(
      env.SESSION,
      shards,
      partner,
      { subjectKey: sessionKey, sourceKeys: subjects, texts },
      counts,
    );
  }
  // Deepest first, the session itself last: until it is gone, its plan can be read again. A tree too
  // large for one request loses its leaves only (what is left is still reached from the session).
  for (const child of subjects.slice(1).reverse()) {
    if (!complete && (plans.get(child)?.children.length ?? 0) > 0) continue;
    if ((await sessionApi(env.SESSION, child).remove()).ok) counts.children++;
  }
  if (!complete) {
    if (options.optimize !== false) await optimizeSearch(shards);
    return {
      ok: false,
      code: "conflict",
      message: `${sessionKey} has more than ${MAX_SUBJECTS} descendants: ${counts.children} erased; ask again to go on`,
    };
  }
  const removed = await sessionApi(env.SESSION, sessionKey).remove();
  const own = plans.get(sessionKey);
  // A key never created counts no session, only the sent records its storage held.
  if (removed.ok && own?.exists === false) counts.sent += own.sentRecords;
  else if (removed.ok) counts.sessions++;
  if (options.optimize !== false) await optimizeSearch(shards);
  if (!removed.ok && Object.values(counts).every((n) => n === 0)) return removed;
  return { ok: true, value: { deleted: true, erased: counts } };
}

function add(into: ErasedCounts, more: ErasedCounts): void {
  for (const field of Object.keys(into) as (keyof ErasedCounts)[]) into[field] += more[field];
}

/**
 * `POST /v1/erase { channel, senderId }`: every direct session of that sender on that channel erased, and
 * the messages they said in the channel's groups (and a main session every peer shares).
 */
export async function eraseSender(env: Env, channel: string, senderId: string): Promise<ErasedCounts> {
  const shards = readShards(env);
  const counts = noCounts();
  const direct = await directSessionsOf(shards, channel, senderId);
  for (const key of direct) {
    const erased = await eraseSession(env, key, { optimize: false });
    if (erased.ok) add(counts, erased.value.erased);
  }
  const request: ErasureRequest = {
    subjectKey: direct[0] ?? `${channel}:direct`,
    sourceKeys: direct,
    sender: { channel, senderId },
  };
  for (const shared of await sharedSessionsOf(shards, channel))
    await eraseIn(env.SESSION, shards, shared, request, counts);
  await optimizeSearch(shards);
  return counts;
}
