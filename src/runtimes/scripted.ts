import type { AgentConfig } from "../config/schema";
import { stripInterSessionHeader } from "../messaging/inter-session";
import { messageText, type TranscriptMessage } from "../transcript/message";
import { assistantMessage, textContent, toolResultMessage } from "./run-messages";
import type { RunInput, RunOutcome } from "./types";

type ScriptedRule = Extract<AgentConfig["runtime"], { type: "scripted" }>["rules"][number];

/** `*` matches anything, `/re/flags` is a regular expression, anything else a case-insensitive substring. */
export function ruleMatches(pattern: string, text: string): boolean {
  if (pattern === "*") return true;
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (regex) return new RegExp(regex[1] ?? "", regex[2]).test(text);
  return text.toLowerCase().includes(pattern.toLowerCase());
}

/** Fills `{{message}}`, `{{system}}`, `{{result}}` and `{{steered}}` in a reply template. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

function fillArgs(args: Record<string, unknown>, values: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [
      key,
      typeof value === "string" ? fill(value, values) : value,
    ]),
  );
}

/** How often a rule that waits for steering looks again. */
const STEERING_POLL_MS = 25;

/**
 * The step's messages steered into the run, waiting up to `waitMs` for the first one (a rule that
 * expects to be steered); texts without their inter-session header, one per line.
 */
async function steeredText(input: RunInput, waitMs: number): Promise<string> {
  const deadline = Date.now() + waitMs;
  let steered = input.takeSteering();
  while (steered.length === 0 && Date.now() < deadline && !input.signal.aborted) {
    await scheduler.wait(STEERING_POLL_MS);
    steered = input.takeSteering();
  }
  return steered.map((message) => stripInterSessionHeader(messageText(message))).join("\n");
}

/** Deterministic agent for the local default, demos and tests: first matching rule wins; no network. */
export async function runScripted(input: RunInput): Promise<RunOutcome> {
  if (input.agent.runtime.type !== "scripted")
    return { kind: "failed", error: "not a scripted agent", retryable: false };
  const text = messageText(input.message);
  const haystack = input.context ? `${input.context}\n${text}` : text;
  let rule: ScriptedRule | undefined;
  try {
    rule = input.agent.runtime.rules.find((candidate) => ruleMatches(candidate.match, haystack));
  } catch (error) {
    // A `/re/` rule the config let through that is not a valid expression: a clear run error, not a throw.
    return { kind: "failed", error: `scripted rule: ${String(error)}`, retryable: false };
  }
  if (!rule) return { kind: "done", text: "", messages: [] };
  // Templates see what was said, not the inter-session header wrapped around it.
  // `{{system}}` shows the run's system prompt (the demo proves an agent's instructions reach its runs).
  const values: Record<string, string> = { message: stripInterSessionHeader(text), system: input.system };
  const tokens = Math.ceil(text.length / 4);
  const messages: TranscriptMessage[] = [];
  if (rule.toolCall) {
    const call = { id: crypto.randomUUID(), name: rule.toolCall.name };
    const args = fillArgs(rule.toolCall.args, values);
    // The call step is priced as a prompt alone: scripted tokens are an estimate, ceil(chars / 4).
    messages.push(
      assistantMessage(input, [{ type: "toolCall", ...call, arguments: args }], "toolUse", {
        input: tokens,
        output: 0,
        totalTokens: tokens,
      }),
    );
    const result = await input.callTool(call.name, args);
    values.result = JSON.stringify(result);
    messages.push(toolResultMessage(input.runId, call, result));
  }
  // Its next step takes what was steered in meanwhile (SPEC §14).
  values.steered = await steeredText(input, rule.waitForSteeringMs ?? 0);
  const reply = rule.reply !== undefined ? fill(rule.reply, values) : (values.result ?? "");
  const outTokens = Math.ceil(reply.length / 4);
  if (reply) {
    // No model writes it piece by piece: the reply streams as one delta, just before the run ends.
    input.onDelta(reply);
    messages.push(
      assistantMessage(input, textContent(reply), "stop", {
        input: tokens,
        output: outTokens,
        totalTokens: tokens + outTokens,
      }),
    );
  }
  return {
    kind: "done",
    text: reply,
    usage: { input: tokens, output: outTokens, total: tokens + outTokens },
    messages,
  };
}
