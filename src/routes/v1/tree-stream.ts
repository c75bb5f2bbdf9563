import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { keyOptionsOf } from "../../config/key-options";
import { badRequest } from "../../errors";
import { descendants } from "../../index-db/children";
import { readShards } from "../../index-db/shards";
import { parseSessionKey } from "../../keys";
import { openSessionStream } from "../../session/client";
import { KEEP_ALIVE_MS, SSE_HEADERS, STREAM_LIFETIME_MS, sseComment, sseFrame } from "../../sse/frames";
import { readSse } from "../../sse/reader";
import { decodeJsonCursor, encodeJsonCursor } from "../../tools/list-cursor";
import { type StreamReader, viewQuery } from "./stream-access";

const TREE_CURSOR_PREFIX = "t.";

/**
 * A tree stream's cursor: every session's last seq, as one id (base64url JSON), so a reconnect resumes
 * each session where it was. A plain seq (a first `?after=`) applies to the root alone.
 */
function parseTreeCursor(cursor: { value: string; field: string }, root: string): Map<string, number> {
  if (/^\d{1,15}$/.test(cursor.value)) return new Map([[root, Number(cursor.value)]]);
  const bad = () => badRequest(`${cursor.field}: not a cursor this stream gave out`);
  if (!cursor.value.startsWith(TREE_CURSOR_PREFIX)) throw bad();
  const parsed = decodeJsonCursor(cursor.value.slice(TREE_CURSOR_PREFIX.length));
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw bad();
  const entries = Object.entries(parsed);
  if (!entries.every(([, seq]) => Number.isSafeInteger(seq) && (seq as number) >= 0)) throw bad();
  return new Map(entries as [string, number][]);
}

function treeCursor(cursors: Map<string, number>): string {
  return TREE_CURSOR_PREFIX + encodeJsonCursor(Object.fromEntries(cursors));
}

/**
 * `?tree=1`: the session's events and those of its sub-agents and theirs, merged as they come, each
 * with its `sessionKey`. Sessions spawned while it runs join when their `child_spawned` event passes;
 * each session is checked against what the reader may read. One substream per session, each read at
 * the pace the client reads (no buffering beyond the pipe), all closed together.
 */
export async function treeStream(
  c: Context<AppEnv>,
  tree: {
    sessionKey: string;
    stateVersion: number;
    reader: StreamReader;
    cursor: { value: string; field: string } | undefined;
  },
): Promise<Response> {
  const { sessionKey: root, reader } = tree;
  const resuming = tree.cursor !== undefined;
  const cursors = tree.cursor ? parseTreeCursor(tree.cursor, root) : new Map<string, number>();
  const rootAfter = cursors.get(root) ?? 0;
  if (tree.cursor && rootAfter > tree.stateVersion)
    throw badRequest(
      `${tree.cursor.field}: ${rootAfter} is beyond the session's stateVersion (${tree.stateVersion})`,
    );
  const keyOptions = keyOptionsOf(c.get("config"));
  const stop = new AbortController();
  c.req.raw.signal.addEventListener("abort", () => stop.abort());
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  const writer = pipe.writable.getWriter();
  const open = new Set<string>();
  let closed = false;

  const finish = async (frame?: Uint8Array) => {
    if (closed) return;
    closed = true;
    stop.abort();
    try {
      if (frame) await writer.write(frame);
      await writer.close();
    } catch {
      // the client is gone
    }
  };

  // A substream that fails (the client left, the object went away) ends the whole stream: the client
  // reconnects with the last id and loses nothing.
  const follow = (sessionKey: string, fromStart: boolean): void => {
    void relay(sessionKey, fromStart).catch(() => finish());
  };

  const relay = async (sessionKey: string, fromStart: boolean): Promise<void> => {
    if (open.has(sessionKey) || closed) return;
    open.add(sessionKey);
    const known = cursors.get(sessionKey);
    const after = known ?? (fromStart ? 0 : undefined);
    const response = await openSessionStream(
      c.env.SESSION,
      sessionKey,
      "/events",
      {
        tag: "1",
        ...(after !== undefined ? { after: String(after) } : {}),
        ...viewQuery(reader),
      },
      stop.signal,
    ).catch(() => undefined);
    if (!response?.ok || !response.body) return settled(sessionKey);
    for await (const event of readSse(response.body)) {
      if (closed) return;
      // The one cursor a tree reader can resume from is the tree's: a substream's own close says why.
      if (event.event === "close") {
        const { reason } = JSON.parse(event.data) as { reason?: string };
        return finish(sseFrame("close", { reason, lastEventId: treeCursor(cursors) }));
      }
      if (event.id !== undefined && event.event !== "gap") cursors.set(sessionKey, Number(event.id));
      if (event.event === "ready") {
        await settled(sessionKey);
        continue;
      }
      const frame = sseFrame(
        event.event ?? "message",
        JSON.parse(event.data),
        event.id !== undefined ? treeCursor(cursors) : undefined,
      );
      await writer.write(frame);
      if (event.event === "child_spawned") {
        const child = (JSON.parse(event.data) as { data?: { childSessionKey?: unknown } }).data
          ?.childSessionKey;
        const agentId = typeof child === "string" ? parseSessionKey(child, keyOptions)?.agentId : undefined;
        if (typeof child !== "string" || !agentId) continue;
        if (reader.mayRead({ sessionKey: child, agentId, spawnedBy: sessionKey })) follow(child, true);
        else hide(child);
      }
    }
  };

  // A live-only tree says where it starts once every session it opened live-only said so (each one's
  // `ready`), so that a reader dropped before its first event resumes with every session's place.
  const awaitingReady = new Set<string>();
  const settled = async (sessionKey: string): Promise<void> => {
    if (!awaitingReady.delete(sessionKey) || awaitingReady.size > 0 || closed) return;
    await writer.write(sseFrame("ready", { sessions: cursors.size }, treeCursor(cursors)));
  };

  // Sessions of the tree the reader may not read (another agent's, or beyond its visibility), counted
  // only where it sees them spawned (a `child_spawned` of a session it reads names each one), so the
  // count says nothing those events do not: `event: hidden` (no id) with the count so far, when it grows.
  const hidden = new Set<string>();
  const announceHidden = () => {
    if (!closed) writer.write(sseFrame("hidden", { sessions: hidden.size })).catch(() => undefined);
  };
  const hide = (sessionKey: string): void => {
    if (hidden.has(sessionKey)) return;
    hidden.add(sessionKey);
    announceHidden();
  };

  const known = await descendants(readShards(c.env), root);
  // A session found now was there before this connection: live-only unless resuming (then from its cursor, or all).
  const initial = [root, ...known.filter((child) => reader.mayRead(child)).map((child) => child.sessionKey)];
  const read = new Set(initial);
  for (const child of known)
    if (!read.has(child.sessionKey) && read.has(child.spawnedBy)) hidden.add(child.sessionKey);
  // Written before any session's events (the writes keep their order).
  if (hidden.size > 0) announceHidden();
  if (!resuming) for (const sessionKey of initial) awaitingReady.add(sessionKey);
  for (const sessionKey of initial) follow(sessionKey, resuming);
  const keepAlive = setInterval(() => {
    if (!closed) writer.write(sseComment("keep-alive")).catch(() => undefined);
  }, KEEP_ALIVE_MS);
  const lifetime = setTimeout(
    () => void finish(sseFrame("close", { reason: "lifetime", lastEventId: treeCursor(cursors) })),
    STREAM_LIFETIME_MS,
  );
  stop.signal.addEventListener("abort", () => {
    clearInterval(keepAlive);
    clearTimeout(lifetime);
  });
  return new Response(pipe.readable, { headers: SSE_HEADERS });
}
