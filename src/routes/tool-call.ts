import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { type NamedRequester, resolveRequester } from "../auth/requester";
import { AppError, ToolInputError } from "../errors";
import { readShards } from "../index-db/shards";
import { toolContext } from "../tools/context";
import { executeToolCall } from "../tools/invoke";
import { toolRegistry } from "../tools/registry";

/**
 * Runs one tool call for either tool route: an unknown tool is 404 before anything else, then the
 * requester is fixed by the credential, then the call runs as that requester.
 */
export async function runToolCall(
  c: Context<AppEnv>,
  name: string,
  rawArgs: unknown,
  named: NamedRequester,
): Promise<object> {
  if (!(name in toolRegistry)) throw new AppError("tool_not_found", `Tool not available: ${name}`);
  const config = c.get("config");
  const requester = await resolveRequester(c.get("identity"), named, config, readShards(c.env));
  if (!requester.ok) throw new AppError(requester.code, requester.message);
  const waitUntil = (work: Promise<unknown>) => c.executionCtx.waitUntil(work);
  const ctx = toolContext(c.env, config, requester.requester, undefined, waitUntil);
  const outcome = await executeToolCall(ctx, name, rawArgs);
  if (!outcome.ok && outcome.code === "bad_request") throw new ToolInputError(outcome.message);
  if (!outcome.ok) throw new AppError(outcome.code, outcome.message);
  return outcome.details;
}
