import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app-env";
import { keyOptionsOf } from "../../config/key-options";
import { grantMessage } from "../../policy/grant-view";
import { sessionApi } from "../../session/client";
import { DEFAULT_HISTORY_LIMIT, historyResult, MAX_HISTORY_LIMIT } from "../../tools/sessions-history";
import { jsonAnswer } from "../json-answer";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { canonicalKeyForRequest } from "./session-access";

export const wholeNumber = z
  .string()
  .regex(/^\d{1,9}$/, "must be a whole number")
  .transform(Number);

/** `GET /v1/sessions/{key}/history`'s query: the tool's `limit`, `offset` and `includeTools`. */
export const historyQuerySchema = z.strictObject({
  // Each ends in the type it is read as, which the OpenAPI document shows (integer, boolean).
  limit: wholeNumber.pipe(z.number().int().min(1).max(MAX_HISTORY_LIMIT)).optional(),
  offset: wholeNumber.pipe(z.number().int().min(0)).optional(),
  includeTools: z
    .enum(["true", "false", "1", "0"])
    .transform((flag) => flag === "true" || flag === "1")
    .pipe(z.boolean())
    .optional(),
});

/**
 * The safe view of a session's history over REST (SPEC §5.2 result, as `sessions_history` answers):
 * for the operator, an agent token in its own agent, or a `read` grant on its session. Never the
 * exact export.
 */
export const sessionHistoryRoutes = new Hono<AppEnv>().get("/:key/history", async (c) => {
  const config = c.get("config");
  const sessionKey = canonicalKeyForRequest(c.get("identity"), config, c.req.param("key"));
  const query = parseBody(historyQuerySchema, c.req.query());
  const page = await sessionApi(c.env.SESSION, sessionKey).history({
    limit: query.limit ?? DEFAULT_HISTORY_LIMIT,
    offset: query.offset ?? 0,
    includeTools: query.includeTools ?? false,
  });
  const result = historyResult(keyOptionsOf(config), sessionKey, unwrapResult(page));
  if (c.get("identity").kind !== "grant") return jsonAnswer(c, result);
  // A grant reads its messages as written, their provenance without other sessions' keys (SPEC §18).
  const messages = (result.messages.toJSON() as { provenance?: unknown }[]).map((message) =>
    grantMessage(message, sessionKey),
  );
  return c.json({ ...result, messages });
});
