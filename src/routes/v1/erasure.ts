import { type Context, Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../../app-env";
import { eraseSender, eraseSession } from "../../erasure/erase";
import { AppError, badRequest } from "../../errors";
import { readJsonBody } from "../middleware";
import { parseBody } from "../parse-body";
import { unwrapResult } from "../store-result";
import { deleteSessionQuerySchema, type eraseSenderAnswerSchema, eraseSenderSchema } from "./erasure-schemas";

// Erasure (SPEC §23): a person's right to be forgotten, the operator's alone.

function operatorOnly(c: Context<AppEnv>, field: string): void {
  if (c.get("identity").kind !== "operator")
    throw new AppError("forbidden", `${field}: erasure needs the operator token`);
}

/** Whether `DELETE /v1/sessions/{key}` asks for erasure (checked before anything is deleted). */
export function asksErasure(c: Context<AppEnv>): boolean {
  const query = parseBody(deleteSessionQuerySchema, c.req.query());
  if (query.erase !== "true") return false;
  operatorOnly(c, "erase");
  return true;
}

/** `DELETE /v1/sessions/{key}?erase=true`, after access to the key was checked. */
export async function eraseSessionRoute(c: Context<AppEnv>, sessionKey: string): Promise<Response> {
  return c.json(unwrapResult(await eraseSession(c.env, sessionKey)));
}

/** `POST /v1/erase { channel, senderId }`. */
export const erasureRoutes = new Hono<AppEnv>().post("/", async (c) => {
  operatorOnly(c, "erase");
  const body = parseBody(eraseSenderSchema, await readJsonBody(c.req.raw));
  const channel = body.channel.toLowerCase();
  if (!c.get("config").channels[channel])
    throw badRequest(`channel: unknown channel "${channel}": add it under channels in the configuration`);
  const erased = await eraseSender(c.env, channel, body.senderId);
  return c.json({ erased } satisfies z.output<typeof eraseSenderAnswerSchema>);
});
