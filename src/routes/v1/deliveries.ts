import { type Context, Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { AppError } from "../../errors";
import {
  countAddressedByOthers,
  type DeliveryCursor,
  findDelivery,
  listDeliveries,
} from "../../index-db/deliveries";
import { readShards } from "../../index-db/shards";
import { DELIVERY_KINDS, DELIVERY_STATUSES, type DeliveryRecord } from "../../session/api";
import { sessionApi } from "../../session/client";
import { encodeJsonCursor, jsonCursorParam } from "../../tools/list-cursor";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { assertOperatorApiAccess, canonicalKeyForRequest } from "./session-access";

export const DEFAULT_DELIVERY_LIMIT = 50;
export const MAX_DELIVERY_LIMIT = 200;

const cursorShape = z.strictObject({ c: z.number().int(), d: z.string().min(1) });

/** A page's `nextCursor` (the console's deliveries page pages with it too). */
export const encodeCursor = (cursor: DeliveryCursor): string =>
  encodeJsonCursor({ c: cursor.createdAt, d: cursor.deliveryId });

const cursorParam = jsonCursorParam(cursorShape, "pass nextCursor from a previous page").transform(
  (cursor): DeliveryCursor => ({ createdAt: cursor.c, deliveryId: cursor.d }),
);

/** `GET /v1/deliveries`' query (SPEC §16). */
export const deliveriesQuerySchema = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  sessionKey: z.string().trim().min(1).optional(),
  kind: z.enum(DELIVERY_KINDS).optional(),
  cursor: cursorParam.optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_DELIVERY_LIMIT))
    .optional(),
});

/** The operator sees every record; an agent token only its own agent's (the query is filtered by it). */
function viewerAgent(c: Context<AppEnv>): string | undefined {
  const identity = c.get("identity");
  assertOperatorApiAccess(identity);
  return identity.kind === "agent" ? identity.agentId : undefined;
}

/**
 * The record's session, from the index: 404 for a record the caller may not see, as for one that does
 * not exist, so an id says nothing about another agent's deliveries.
 */
async function sessionOf(c: Context<AppEnv>): Promise<{ sessionKey: string; deliveryId: string }> {
  const agentId = viewerAgent(c);
  const deliveryId = c.req.param("deliveryId") ?? "";
  const found = await findDelivery(readShards(c.env), deliveryId);
  if (!found || (agentId !== undefined && found.agentId !== agentId))
    throw new AppError("not_found", `delivery ${deliveryId} not found`);
  return { sessionKey: found.sessionKey, deliveryId };
}

/** Strips the index's own column from a record. */
const shown = ({ agentId: _, ...record }: DeliveryRecord & { agentId?: string }): DeliveryRecord => record;

/**
 * The delivery ledger's operator API (SPEC §16): list from the D1 index (newest first), read one from
 * its session object (the record of truth), start a new attempt series, or dismiss.
 */
export const deliveryRoutes = new Hono<AppEnv>()
  .get("/", async (c) => {
    const agentId = viewerAgent(c);
    const query = parseBody(deliveriesQuerySchema, c.req.query());
    const sessionKey =
      query.sessionKey !== undefined
        ? canonicalKeyForRequest(
            c.get("identity"),
            c.get("config"),
            query.sessionKey,
            undefined,
            "sessionKey",
          )
        : undefined;
    const filters = {
      ...(query.status ? { status: query.status } : {}),
      ...(query.kind ? { kind: query.kind } : {}),
    };
    // An agent token's first page (not one session's) also counts what its agent knows of but does not
    // own, so that an empty list is not read as "nothing happened" (its records are the producer's).
    const countHidden = agentId !== undefined && sessionKey === undefined && !query.cursor;
    const [page, hiddenByVisibility] = await Promise.all([
      listDeliveries(readShards(c.env), {
        ...filters,
        ...(sessionKey ? { sessionKey } : {}),
        ...(agentId !== undefined ? { agentId } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
        limit: query.limit ?? DEFAULT_DELIVERY_LIMIT,
      }),
      countHidden ? countAddressedByOthers(readShards(c.env), { ...filters, agentId }) : 0,
    ]);
    return c.json({
      count: page.deliveries.length,
      deliveries: page.deliveries.map(shown),
      ...(page.next ? { nextCursor: encodeCursor(page.next) } : {}),
      ...(hiddenByVisibility > 0 ? { hiddenByVisibility } : {}),
    });
  })
  .get("/:deliveryId", async (c) => {
    const { sessionKey, deliveryId } = await sessionOf(c);
    return c.json(unwrapResult(await sessionApi(c.env.SESSION, sessionKey).delivery(deliveryId)));
  })
  .post("/:deliveryId/retry", async (c) => {
    const { sessionKey, deliveryId } = await sessionOf(c);
    return c.json(unwrapResult(await sessionApi(c.env.SESSION, sessionKey).retryDelivery(deliveryId)));
  })
  .post("/:deliveryId/dismiss", async (c) => {
    const { sessionKey, deliveryId } = await sessionOf(c);
    return c.json(unwrapResult(await sessionApi(c.env.SESSION, sessionKey).dismissDelivery(deliveryId)));
  });
