import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { AppError } from "../../errors";
import { openSessionStream, sessionApi } from "../../session/client";
import { unwrapResult } from "../store-result";
import {
  guardedStream,
  seqCursor,
  streamCursor,
  streamKey,
  streamReader,
  streamTarget,
  viewQuery,
  wantsTree,
} from "./stream-access";
import { treeStream } from "./tree-stream";

/** `GET /v1/sessions/{key}/events` (SPEC §14): the session's events, replayed from a cursor, then live. */
export async function sessionEvents(c: Context<AppEnv>): Promise<Response> {
  const reader = streamReader(c);
  const sessionKey = streamKey(c, c.req.param("key") ?? "");
  const row = unwrapResult(await sessionApi(c.env.SESSION, sessionKey).describe());
  if (!reader.mayRead(await streamTarget(c, sessionKey, row)))
    throw new AppError("forbidden", "this credential may not read this session");
  const cursor = streamCursor(c);
  if (wantsTree(c))
    return guardedStream(
      c,
      await treeStream(c, { sessionKey, stateVersion: row.stateVersion ?? 0, reader, cursor }),
    );
  const stream = await openSessionStream(
    c.env.SESSION,
    sessionKey,
    "/events",
    {
      ...(cursor ? { after: String(seqCursor(cursor)), field: cursor.field } : {}),
      ...viewQuery(reader),
    },
    c.req.raw.signal,
  );
  return guardedStream(c, stream);
}

/** `GET /v1/runs/{runId}/events` and a streamed `POST …/messages`: one run, from a cursor to its end. */
export async function runEvents(
  c: Context<AppEnv>,
  sessionKey: string,
  runId: string,
  after = 0,
  field = "after",
): Promise<Response> {
  const stream = await openSessionStream(
    c.env.SESSION,
    sessionKey,
    `/runs/${encodeURIComponent(runId)}/events`,
    {
      after: String(after),
      field,
      ...viewQuery({ raw: false, confine: c.get("identity").kind === "grant" }),
    },
    c.req.raw.signal,
  );
  return guardedStream(c, stream);
}

/** The cursor of a run stream request (`Last-Event-ID` or `?after=`; 0 replays the whole run). */
export function runCursor(c: Context<AppEnv>): { after: number; field: string } {
  const cursor = streamCursor(c);
  return cursor ? { after: seqCursor(cursor), field: cursor.field } : { after: 0, field: "after" };
}
