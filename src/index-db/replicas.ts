import { type BoundShards, type IndexDb, type IndexShards, keyShard, type ShardsOf } from "./shards";

/**
 * The header a caller's D1 bookmarks travel in, both ways: `<shard>=<bookmark>` per index shard, comma
 * separated (`0=00000000-00000011-…, 2=…`). README "Read replicas" says what it promises.
 */
export const BOOKMARK_HEADER = "Switchboard-Bookmark";

/**
 * Where a shard's next read starts: at least a bookmark, or at the primary (`first-primary`, what an
 * answer says after a session object may have written that shard since the request last read it).
 */
type Start = D1SessionBookmark | "first-primary";

/** A parse of the caller's header: its value, or the message of the 400 it is. */
type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

// D1's bookmarks are hex groups joined by hyphens (`00000000-00000011-00000000-…`); anything else is not
// one of ours. Loose enough for a longer or shorter group, strict enough to refuse what is not a bookmark.
const BOOKMARK = /^[0-9a-f]+(?:-[0-9a-f]+)*$/i;
const MAX_BOOKMARK_CHARS = 128;

/**
 * One shard's D1 session for one request. Every query goes through it, so a write the request makes is
 * seen by its later reads (D1 keeps a session sequentially consistent). A session object reached after
 * the request's last read may have written the shard (its outbox writes the primary before it answers),
 * so the next read starts a new session at the primary.
 */
class ShardSession implements IndexDb {
  readonly #db: D1Database;
  readonly #start: Start | undefined;
  #session: D1DatabaseSession | undefined;
  /** The newest bookmark of the sessions this request ended (one per object call between reads). */
  #ended: D1SessionBookmark | undefined;
  #primaryNext = false;

  constructor(db: D1Database, start: Start | undefined) {
    this.#db = db;
    this.#start = start;
  }

  prepare(query: string): D1PreparedStatement {
    return this.#current().prepare(query);
  }

  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return this.#current().batch<T>(statements);
  }

  /** A session object in this shard was called: it may have written, so read the primary next. */
  objectCalled(): void {
    this.#primaryNext = true;
  }

  /** What the answer tells the caller about this shard: where its next read must start, if anywhere. */
  next(): Start | undefined {
    if (this.#primaryNext) return "first-primary";
    return this.#session?.getBookmark() ?? this.#ended ?? this.#start;
  }

  #current(): D1DatabaseSession {
    if (this.#session && !this.#primaryNext) return this.#session;
    this.#ended = this.#session?.getBookmark() ?? this.#ended;
    const start = this.#primaryNext ? "first-primary" : (this.#start ?? "first-unconstrained");
    this.#primaryNext = false;
    this.#session = this.#db.withSession(start);
    return this.#session;
  }
}

/** A request's D1 sessions, one per shard, started where the caller's bookmarks say. */
export class ReplicaSessions {
  readonly #sessions: ShardsOf<ShardSession>;

  private constructor(sessions: ShardsOf<ShardSession>) {
    this.#sessions = sessions;
  }

  /** The sessions over `databases`, from the caller's header (absent: each starts anywhere). */
  static open(databases: BoundShards, header: string | undefined): Parsed<ReplicaSessions> {
    const starts = parseBookmarks(header ?? "", databases.length);
    if (!starts.ok) return starts;
    const [first, ...rest] = databases;
    return {
      ok: true,
      value: new ReplicaSessions(
        Object.assign(
          [
            new ShardSession(first, starts.value.get(0)),
            ...rest.map((db, n) => new ShardSession(db, starts.value.get(n + 1))),
          ] as const,
          { keyRouted: databases.keyRouted },
        ),
      ),
    };
  }

  /** The shards as the request's queries see them. */
  get shards(): IndexShards {
    return this.#sessions;
  }

  /** The session object of `sessionKey` was called: its shard's next read starts at the primary. */
  objectCalled(sessionKey: string): void {
    keyShard(this.#sessions, sessionKey).objectCalled();
  }

  /** The answer's header value: every shard the caller named or the request read, or undefined. */
  header(): string | undefined {
    const parts = this.#sessions.flatMap((session, n) => {
      const next = session.next();
      return next === undefined ? [] : [`${n}=${next}`];
    });
    return parts.length > 0 ? parts.join(", ") : undefined;
  }
}

/** The caller's header as a start per shard number; a malformed one is an error naming what is wrong. */
function parseBookmarks(header: string, shardCount: number): Parsed<Map<number, Start>> {
  const starts = new Map<number, Start>();
  const fail = (message: string): Parsed<Map<number, Start>> => ({
    ok: false,
    message: `${BOOKMARK_HEADER}: ${message}`,
  });
  if (header.trim() === "") return { ok: true, value: starts };
  for (const entry of header.split(",")) {
    const match = /^\s*(\d{1,4})=(\S+?)\s*$/.exec(entry);
    const [, shard = "", value = ""] = match ?? [];
    if (!match) return fail(`"${entry.trim()}" is not <shard>=<bookmark>`);
    const n = Number(shard);
    if (n >= shardCount) return fail(`shard ${n} does not exist (this deployment has ${shardCount})`);
    if (starts.has(n)) return fail(`shard ${n} is named twice`);
    const valid = value === "first-primary" || (value.length <= MAX_BOOKMARK_CHARS && BOOKMARK.test(value));
    if (!valid) return fail(`"${value}" is not a D1 bookmark`);
    starts.set(n, value);
  }
  return { ok: true, value: starts };
}
