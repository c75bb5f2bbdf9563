import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { configuredModels } from "../config/agents";
import { AppError } from "../errors";
import { grantMessage, grantRow } from "../policy/grant-view";
import { parseBody } from "../routes/parse-body";
import { unwrapResult } from "../routes/store-result";
import { canonicalKeyForRequest } from "../routes/v1/session-access";
import { wholeNumber } from "../routes/v1/session-history";
import { sessionApi } from "../session/client";
import type { TranscriptMessage } from "../transcript/message";
import { consoleViewer, viewerMay } from "./access";
import { SessionPage } from "./pages/session-page";
import { ExactTranscript, SafeTranscript } from "./pages/transcript";
import { sessionHref } from "./ui";

/** Messages per transcript page, in either view. */
export const TRANSCRIPT_PAGE = 50;
/** How many newer messages a search hit's page shows after the hit. */
const LINKED_CONTEXT = 2;
/** A hit among the newest this many messages opens the newest page, which then follows new messages. */
const RECENT_HIT = 10;

/** The offset of the page that shows a search hit with `newer` messages after it. */
const linkedOffset = (newer: number) => (newer <= RECENT_HIT ? 0 : newer - LINKED_CONTEXT);

/**
 * The session page's query: which transcript view, and where in it (`offset` back from the newest in the
 * safe view, `before` a seq in the exact view, `at` a message a search hit names). Other fields are
 * ignored: a link may carry its own.
 */
const pageQuerySchema = z.object({
  view: z.enum(["safe", "exact"]).optional(),
  offset: wholeNumber.optional(),
  before: wholeNumber.optional(),
  at: z.string().min(1).max(200).optional(),
});
type PageQuery = z.infer<typeof pageQuerySchema>;

/** The canonical key of the path, once the viewer may read that session (a grant only its own). */
function readableKey(c: Context<AppEnv>): string {
  const viewer = consoleViewer(c);
  const sessionKey = canonicalKeyForRequest(c.get("identity"), c.get("config"), c.req.param("key") ?? "");
  if (!viewerMay(viewer, sessionKey, "read"))
    throw new AppError("forbidden", 'this grant token lacks the "read" scope');
  return sessionKey;
}

function pageQuery(c: Context<AppEnv>): PageQuery {
  const query = parseBody(pageQuerySchema, c.req.query());
  if (query.view === "exact" && consoleViewer(c).kind !== "operator")
    throw new AppError("forbidden", "the exact view is the operator's; a grant reads the safe view");
  return query;
}

/** The query string that selects the same transcript page, for a link or the transcript region. */
function queryString(query: PageQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** `/console/fragments/sessions/:key` and its transcript: the session page's own parts. */
export const sessionRoutes = new Hono<AppEnv>()
  .get("/:key", async (c) => {
    const sessionKey = readableKey(c);
    const query = pageQuery(c);
    const described = unwrapResult(await sessionApi(c.env.SESSION, sessionKey).describe());
    // A grant's page shows its one session: no parent's or children's keys (SPEC §18).
    const row = consoleViewer(c).kind === "grant" ? grantRow(described, sessionKey) : described;
    return c.html(
      <SessionPage
        viewer={consoleViewer(c)}
        sessionKey={sessionKey}
        row={row}
        models={[...configuredModels(c.get("config"))].sort()}
        transcriptQuery={queryString(query)}
        exact={query.view === "exact"}
      />,
    );
  })
  .get("/:key/transcript", async (c) => {
    const sessionKey = readableKey(c);
    const query = pageQuery(c);
    const session = sessionApi(c.env.SESSION, sessionKey);
    const page = sessionHref(sessionKey);
    if (query.view === "exact") {
      const exact = unwrapResult(await session.exactPage(query.before, TRANSCRIPT_PAGE));
      return c.html(
        <ExactTranscript
          lines={exact.lines}
          olderHref={
            exact.hasOlder ? `${page}${queryString({ view: "exact", before: exact.firstSeq })}` : undefined
          }
          newestHref={query.before !== undefined ? `${page}?view=exact` : undefined}
        />,
      );
    }
    // The operator sees tool results too (redacted like the rest); a grant what sessions_history shows.
    const includeTools = consoleViewer(c).kind === "operator";
    // A search hit's message: the page ending just after it (a page keeps its newest messages under the
    // byte cap); a message not there opens the newest page.
    const linked = query.at ? await session.messageOffset(query.at, includeTools) : undefined;
    const offset = linked?.ok ? linkedOffset(linked.value.newer) : (query.offset ?? 0);
    const history = unwrapResult(await session.history({ limit: TRANSCRIPT_PAGE, offset, includeTools }));
    const notes = [
      history.droppedMessages ? "Some messages were left out to keep the page within its size cap." : "",
      history.contentTruncated
        ? "The safe view leaves out run details (usage, cost) and cuts long texts short."
        : "",
      history.contentRedacted ? "Secrets in this page are masked." : "",
    ].filter(Boolean);
    const messages = JSON.parse(history.messagesJson) as TranscriptMessage[];
    const grant = consoleViewer(c).kind === "grant";
    return c.html(
      <SafeTranscript
        messages={grant ? messages.map((message) => grantMessage(message, sessionKey)) : messages}
        notes={notes}
        olderHref={history.nextOffset !== undefined ? `${page}?offset=${history.nextOffset}` : undefined}
        // Pages are capped in bytes, so a page's size is not known before it is read: forward goes to the
        // newest page (the browser's Back returns to a newer page seen before), never past a message.
        newestHref={offset > 0 ? page : undefined}
      />,
    );
  });
