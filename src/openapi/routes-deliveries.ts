import { z } from "zod";
import { deliveriesQuerySchema, MAX_DELIVERY_LIMIT } from "../routes/v1/deliveries";
import { DELIVERY_KINDS, DELIVERY_STATUSES } from "../session/api";
import type { RouteDoc } from "./types";

const deliveryRecordSchema = z.object({
  deliveryId: z.string(),
  kind: z
    .enum(DELIVERY_KINDS)
    .describe(
      "`completion`: a sub-agent's result to its requester; `announce`/`reply`: a channel post; `notice`: a watch notice",
    ),
  runId: z.string().optional().describe("The run whose result it carries, when there is one"),
  sessionKey: z.string().describe("The producing session (the record lives there)"),
  target: z.string().describe("A session key, a watcher's key, or a channel address `channel:to[#thread]`"),
  status: z
    .enum(DELIVERY_STATUSES)
    .describe(
      "`in_progress`: handed to the Queue; `not_required`: intentional silence (NO_REPLY/ANNOUNCE_SKIP); `suspended`: retries ran out (30 min) or the dead-letter queue took it; `dismissed`: left undelivered by an operator",
    ),
  attempts: z.number().int().describe("Attempts in the current series (a retry starts a new one at 0)"),
  nextAttemptAt: z.number().int().optional().describe("ms since the epoch, while a retry is scheduled"),
  lastError: z.string().optional().describe("Why the last attempt failed"),
  partsSent: z
    .number()
    .int()
    .optional()
    .describe("A platform reply split in parts: how many are out (a retry sends the rest)"),
  createdAt: z.number().int().describe("ms since the epoch"),
  updatedAt: z.number().int().describe("ms since the epoch"),
});

const deliveriesPageSchema = z.object({
  count: z.number().int(),
  deliveries: z.array(deliveryRecordSchema).describe("Newest first"),
  nextCursor: z.string().optional().describe("Pass as `cursor` for the next page; absent on the last"),
  hiddenByVisibility: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      "Agent tokens, on a first page without `sessionKey`: how many records of other agents' sessions match the filters and are addressed to this agent's sessions (a sub-agent's completion to its requester, a watch notice to its watcher). They belong to the producing agent (the operator token lists them); only their number is given, never records an agent knows nothing of. Absent when none.",
    ),
});

const suspendedExample = {
  deliveryId: "d7a0c1e2-5b3f-4e8a-9c6d-0f1e2d3c4b5a",
  kind: "announce",
  runId: "5d0c3a59-2f4e-4b8a-9d1c-7e6f5a4b3c2d",
  sessionKey: "agent:main:telegram:direct:4711",
  target: "telegram:4711",
  status: "suspended",
  attempts: 9,
  lastError: "webhook answered 503",
  createdAt: 1767225600000,
  updatedAt: 1767227400000,
};

const retriedExample = { ...suspendedExample, status: "pending", attempts: 0, nextAttemptAt: 1767228000000 };

// Typed by the route's own schema, so a query parameter added there must be described here.
const query: Record<keyof typeof deliveriesQuerySchema.shape, string> = {
  status: `Only records in this status: ${DELIVERY_STATUSES.map((status) => `\`${status}\``).join(", ")}.`,
  sessionKey: "Only the records of this producing session (an agent token may give a legacy key).",
  kind: `Only this kind: ${DELIVERY_KINDS.map((kind) => `\`${kind}\``).join(", ")}.`,
  cursor: "`nextCursor` of the previous page.",
  limit: `Records per page, 1–${MAX_DELIVERY_LIMIT} (default 50).`,
};

const WHO =
  "The operator token sees every record, an agent token its own agent's (another agent's is 404); run and grant tokens are refused (403).";

const idParam = { deliveryId: "The delivery's id (from `GET /v1/deliveries` or a `delivery` event)." };

/** The delivery ledger's operator API (SPEC §16). */
export const deliveryRouteDocs: RouteDoc[] = [
  {
    method: "GET",
    path: "/v1/deliveries",
    operationId: "listDeliveries",
    summary: "List delivery records",
    description: `Every handoff that must reach someone (a sub-agent completion, a channel announce or reply, a watch notice) and where it stands, from the index, newest first. Records are kept 7 days after they settle. ${WHO}`,
    tag: "Deliveries",
    auth: "bearer",
    query,
    querySchema: deliveriesQuerySchema,
    responses: [
      {
        status: 200,
        description: "A page of records.",
        schema: deliveriesPageSchema,
        example: {
          count: 1,
          deliveries: [suspendedExample],
          nextCursor: "eyJjIjoxNzY3MjI1NjAwMDAwLCJkIjoi…",
        },
      },
    ],
    errors: [400, 401, 403, 500],
  },
  {
    method: "GET",
    path: "/v1/deliveries/:deliveryId",
    operationId: "getDelivery",
    summary: "Read a delivery record",
    description: `The record as its session holds it (the record of truth). ${WHO}`,
    tag: "Deliveries",
    auth: "bearer",
    pathParams: idParam,
    responses: [
      { status: 200, description: "The record.", schema: deliveryRecordSchema, example: suspendedExample },
    ],
    errors: [401, 403, 404, 500],
  },
  {
    method: "POST",
    path: "/v1/deliveries/:deliveryId/retry",
    operationId: "retryDelivery",
    summary: "Retry a delivery",
    description: `Starts a new attempt series from the kept payload (status \`pending\`, attempts 0, the same schedule and 30-minute deadline). The receiver still deduplicates on the delivery's idempotency key, so a retry after an ambiguous failure never doubles a message. Only a \`suspended\`, \`failed\` or \`dismissed\` record: any other is 409. ${WHO}`,
    tag: "Deliveries",
    auth: "bearer",
    pathParams: idParam,
    responses: [
      {
        status: 200,
        description: "The record, pending again.",
        schema: deliveryRecordSchema,
        example: retriedExample,
      },
    ],
    errors: [401, 403, 404, 409, 500],
  },
  {
    method: "POST",
    path: "/v1/deliveries/:deliveryId/dismiss",
    operationId: "dismissDelivery",
    summary: "Dismiss a delivery",
    description: `Leaves the delivery undelivered on purpose (status \`dismissed\`; a pending one is not attempted again); it can still be retried later. Only a \`pending\`, \`failed\` or \`suspended\` record: any other is 409. ${WHO}`,
    tag: "Deliveries",
    auth: "bearer",
    pathParams: idParam,
    responses: [
      {
        status: 200,
        description: "The record, dismissed.",
        schema: deliveryRecordSchema,
        example: { ...suspendedExample, status: "dismissed", updatedAt: 1767228000000 },
      },
    ],
    errors: [401, 403, 404, 409, 500],
  },
];
