import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { type NamedRequester, resolveRequester } from "../auth/requester";
import type { ToolName } from "../config/schema";
import { AppError } from "../errors";
import { sessionApi } from "../session/client";
import { isToolAllowed, prepareToolCall } from "../tools/invoke";
import { toolRegistry } from "../tools/registry";
import type { ToolContext } from "../tools/types";

/**
 * Runs one tool call for either tool route, in SPEC order: the tool exists, the requester is fixed by
 * the credential, the tool is granted to it, the args are valid; then the handler, whose policy and
 * lookup failures are results.
 */
export async function runToolCall(
  c: Context<AppEnv>,
  name: string,
  rawArgs: unknown,
  named: NamedRequester,
): Promise<object> {
  if (!(name in toolRegistry)) throw new AppError("tool_not_found", `Tool not available: ${name}`);
  const config = c.get("config");
  const requester = await resolveRequester(c.get("identity"), named, config, c.env.DB);
  if (!requester.ok) throw new AppError(requester.code, requester.message);
  const ctx: ToolContext = {
    requester: requester.requester,
    config,
    keyOptions: { mainKey: config.session.mainKey, scope: config.session.scope },
    db: c.env.DB,
    session: (sessionKey) => sessionApi(c.env.SESSION, sessionKey),
  };
  if (!isToolAllowed(ctx, name as ToolName))
    throw new AppError("tool_not_found", `Tool not available: ${name}`);
  const prepared = prepareToolCall(name, rawArgs);
  if (!prepared.ok) throw new AppError(prepared.code, prepared.message);
  return prepared.tool.handler(ctx, prepared.params);
}
