import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { keyOptionsOf } from "../config/key-options";
import { listDeliveries } from "../index-db/deliveries";
import { listSessions } from "../index-db/list-page";
import { readShards } from "../index-db/shards";
import type { VisibleScope } from "../policy/visibility";
import { parseBody } from "../routes/parse-body";
import { DEFAULT_DELIVERY_LIMIT, deliveriesQuerySchema, encodeCursor } from "../routes/v1/deliveries";
import { canonicalKeyForRequest } from "../routes/v1/session-access";
import { toSessionRow } from "../session/api";
import { encodeListCursor } from "../tools/list-cursor";
import { listQueryOf, sessionsListSchema } from "../tools/sessions-list";
import { searchSessions, sessionsSearch } from "../tools/sessions-search";
import { requireOperator } from "./access";
import { ATTENTION_SHOWN, DeliveriesView } from "./pages/deliveries";
import { SearchHits } from "./pages/search-hits";
import { type ListFilters, SessionsTable, SessionsView } from "./pages/sessions-list";
import { nextPageHref, queryArgs } from "./query-args";

/** The operator sees every session (the console's lists are the operator's alone). */
const EVERY_SESSION: VisibleScope = { type: "all" };

const LIST_TYPES = {
  lists: ["kinds"],
  numbers: ["limit", "activeMinutes", "offset", "messageLimit"],
  booleans: ["archived", "includeArchived", "includeTools"],
} as const;

const search = sessionsSearch.schema.shape;
/** The message search on the sessions page: sessions_search's params, its query named `q`. */
const searchQuerySchema = z.object({
  q: search.query,
  sessionKey: z.string().trim().min(1).optional(),
  role: search.role,
  includeTools: search.includeTools,
  limit: search.limit,
  cursor: search.cursor,
});

/** A `sessionKey` field as the canonical key it names (400 naming the field when it names none). */
const canonicalSessionKey = (c: Context<AppEnv>, raw: string | undefined) =>
  raw === undefined
    ? undefined
    : canonicalKeyForRequest(c.get("identity"), c.get("config"), raw, undefined, "sessionKey");

/** Blank fields left out: a GET form sends every field, and the deliveries schema is strict. */
const filled = (query: Record<string, string>) =>
  Object.fromEntries(Object.entries(query).filter(([, value]) => value.trim() !== ""));

/**
 * The operator's lists (README "Console"): sessions with sessions_list's filters, message search with
 * sessions_search's, and the delivery ledger with suspended and failed records first. Grants get 403.
 */
export const listRoutes = new Hono<AppEnv>()
  .get("/sessions", async (c) => {
    requireOperator(c);
    const url = new URL(c.req.url);
    const keyOptions = keyOptionsOf(c.get("config"));
    const args = queryArgs(c.req.queries(), LIST_TYPES);
    if (args.q !== undefined) {
      // The filters only fill their form here; the cursor is the search's.
      const { cursor: _, ...listArgs } = args;
      const filters: ListFilters = parseBody(sessionsListSchema, listArgs);
      const params = parseBody(searchQuerySchema, args);
      const page = await searchSessions(readShards(c.env), keyOptions, EVERY_SESSION, {
        ...params,
        query: params.q,
        sessionKey: canonicalSessionKey(c, params.sessionKey),
      });
      const next = page.nextCursor && nextPageHref("/console/sessions", url.searchParams, page.nextCursor);
      return c.html(
        <SessionsView filters={filters} search={params}>
          <SearchHits hits={page.hits} indexing={page.indexing === true} next={next} />
        </SessionsView>,
      );
    }
    const filters = parseBody(sessionsListSchema, args);
    const page = await listSessions(readShards(c.env), listQueryOf(filters, EVERY_SESSION));
    const rows = page.rows.map((columns) => ({
      canonicalKey: String(columns.session_key),
      row: toSessionRow(columns, keyOptions),
    }));
    const cursor = page.nextCursor && encodeListCursor(page.nextCursor);
    const next = cursor && nextPageHref("/console/sessions", url.searchParams, cursor);
    return c.html(
      <SessionsView filters={filters}>
        <SessionsTable rows={rows} next={next} />
      </SessionsView>,
    );
  })
  .get("/deliveries", async (c) => {
    requireOperator(c);
    const url = new URL(c.req.url);
    const query = parseBody(deliveriesQuerySchema, filled(c.req.query()));
    const sessionKey = canonicalSessionKey(c, query.sessionKey);
    const shards = readShards(c.env);
    // What waits on the operator: given-up (suspended) and refused (failed) records, both retryable.
    const [suspended, failed, recent] = await Promise.all([
      listDeliveries(shards, { status: "suspended", limit: ATTENTION_SHOWN }),
      listDeliveries(shards, { status: "failed", limit: ATTENTION_SHOWN }),
      listDeliveries(shards, {
        ...(query.status ? { status: query.status } : {}),
        ...(query.kind ? { kind: query.kind } : {}),
        ...(sessionKey ? { sessionKey } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
        limit: query.limit ?? DEFAULT_DELIVERY_LIMIT,
      }),
    ]);
    return c.html(
      <DeliveriesView
        attention={[...suspended.deliveries, ...failed.deliveries]
          .sort((a, b) => b.createdAt - a.createdAt || (a.deliveryId < b.deliveryId ? 1 : -1))
          .slice(0, ATTENTION_SHOWN)}
        moreAttention={suspended.next !== undefined || failed.next !== undefined}
        recent={recent.deliveries}
        filters={{ status: query.status, kind: query.kind, sessionKey: query.sessionKey }}
        keyOptions={keyOptionsOf(c.get("config"))}
        next={recent.next && nextPageHref("/console/deliveries", url.searchParams, encodeCursor(recent.next))}
      />,
    );
  });
