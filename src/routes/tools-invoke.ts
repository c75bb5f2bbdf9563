import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { refineKeyInput } from "../keys";
import { MAX_IDEMPOTENCY_KEY_CHARS } from "../limits";
import { invokeAnswerJson } from "../tools/invoke";
import { readJsonBody } from "./middleware";
import { parseBody } from "./parse-body";
import { runToolCall } from "./tool-call";

/** OpenClaw's `/tools/invoke` body: `tool` (or `name`), args, and the requester for operator calls. */
export const invokeBodySchema = z
  .object({
    tool: z.string().trim().min(1).optional(),
    name: z.string().trim().min(1).optional(),
    args: z.unknown().optional(),
    sessionKey: z.string().trim().min(1).superRefine(refineKeyInput).optional(),
    agentId: z.string().trim().min(1).optional(),
    idempotencyKey: z.string().max(MAX_IDEMPOTENCY_KEY_CHARS).optional(),
  })
  .refine((body) => body.tool ?? body.name, { message: "tool required", path: ["tool"] });

/** `POST /tools/invoke`: 200 `{ ok: true, result }` for every result, errors per SPEC §9. */
export const toolsInvokeRoutes = new Hono<AppEnv>().post("/", async (c) => {
  const body = parseBody(invokeBodySchema, await readJsonBody(c.req.raw));
  const name = body.tool ?? body.name ?? "";
  const details = await runToolCall(c, name, body.args, {
    sessionKey: body.sessionKey ?? c.req.header("X-Switchboard-Session"),
    agentId: body.agentId,
  });
  return c.body(invokeAnswerJson(name, details), 200, { "Content-Type": "application/json" });
});

/**
 * `/tools/invoke` with any method but POST: 405 with `Allow: POST`, as OpenClaw's gateway answers (it
 * checks the method before the token, and so does this), in its error envelope.
 */
export function invokeMethodNotAllowed(c: Context<AppEnv>) {
  const error = { type: "method_not_allowed", message: `${c.req.method} /tools/invoke: use POST` };
  return c.json({ ok: false, error }, 405, { Allow: "POST" });
}
