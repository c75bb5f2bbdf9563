import { type ToolName, toolNames } from "../config/schema";
import { allowedTools } from "../policy/tool-profiles";
import { stringifyJson } from "../text/json-text";
import { describeZodError } from "../validation";
import { normalizeArgs } from "./args";
import { toolRegistry } from "./registry";
import type { AnyTool, ToolContext } from "./types";

export type PreparedCall =
  | { ok: true; tool: AnyTool; params: Record<string, unknown> }
  | { ok: false; code: "tool_not_found" | "bad_request"; message: string };

const isToolName = (name: string): name is ToolName => (toolNames as readonly string[]).includes(name);

/** Finds the tool and validates its args: everything that needs no storage (SPEC §5.0). */
export function prepareToolCall(name: string, rawArgs: unknown): PreparedCall {
  const tool = isToolName(name) ? toolRegistry[name] : undefined;
  if (!tool) return { ok: false, code: "tool_not_found", message: `Tool not available: ${name}` };
  const args = rawArgs ?? {};
  if (typeof args !== "object" || Array.isArray(args)) {
    return { ok: false, code: "bad_request", message: "args must be an object" };
  }
  const parsed = tool.schema.safeParse(normalizeArgs(tool.schema, args), { reportInput: true });
  if (!parsed.success) return { ok: false, code: "bad_request", message: describeZodError(parsed.error) };
  return { ok: true, tool, params: parsed.data };
}

/** True when the requester's profile and sub-agent policy grant this tool (SPEC §5.9). */
export function isToolAllowed(ctx: Pick<ToolContext, "config" | "requester">, name: ToolName): boolean {
  return allowedTools(ctx.config, ctx.requester).has(name);
}

export type ToolOutcome =
  | { ok: true; details: object }
  | { ok: false; code: "tool_not_found" | "bad_request"; message: string };

/**
 * One tool call as the context's requester, in SPEC order: granted to the requester (profile and
 * sub-agent policy), args valid, then the handler, whose policy and lookup failures are results.
 */
export async function executeToolCall(
  ctx: ToolContext,
  name: string,
  rawArgs: unknown,
): Promise<ToolOutcome> {
  if (!isToolName(name) || !toolRegistry[name] || !isToolAllowed(ctx, name)) {
    return { ok: false, code: "tool_not_found", message: `Tool not available: ${name}` };
  }
  const prepared = prepareToolCall(name, rawArgs);
  if (!prepared.ok) return prepared;
  return { ok: true, details: await prepared.tool.handler(ctx, prepared.params) };
}

/** The text a model reads of a result: the tool's own, else the compact JSON of its details. */
function resultText(name: string, details: object): string {
  const tool = isToolName(name) ? toolRegistry[name] : undefined;
  return tool?.resultText?.(details) ?? stringifyJson(details);
}

/**
 * `/tools/invoke`'s answer as JSON text: the same text as `stringifyJson({ ok: true, result:
 * toolEnvelope(name, details) })`, with the details serialized once — the default `text` is their JSON,
 * which the envelope then holds as it is (a list page's rows were serialized twice).
 */
export function invokeAnswerJson(name: string, details: object): string {
  const json = stringifyJson(details);
  const tool = isToolName(name) ? toolRegistry[name] : undefined;
  const text = tool?.resultText?.(details) ?? json;
  return `{"ok":true,"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"details":${json}}}`;
}

/** The result envelope of `/tools/invoke` and MCP (SPEC §5.0). */
export function toolEnvelope(
  name: string,
  details: object,
): {
  content: { type: "text"; text: string }[];
  details: object;
} {
  return { content: [{ type: "text", text: resultText(name, details) }], details };
}
