import { z } from "zod";
import { signatureHeader } from "../channels/signature";
import type { AgentConfig } from "../config/schema";
import { messageTextSchema } from "../transcript/message";
import { describeZodError } from "../validation";
import { describeFetchFailure, describeHttpFailure, readJsonBody } from "./http-errors";
import { assistantMessage, textContent } from "./run-messages";
import type { RunInput, RunOutcome, RunUsage } from "./types";

/** What a webhook agent answers synchronously (SPEC §7). */
export const webhookAnswerSchema = z.object({
  text: messageTextSchema,
  usage: z.object({ input: z.number(), output: z.number(), total: z.number() }).partial().optional(),
});

/** POSTs the run to the agent's URL, signed; `{ text }` now, or `202` and a later result post. */
export async function runWebhook(input: RunInput): Promise<RunOutcome> {
  const runtime = input.agent.runtime;
  if (runtime.type !== "webhook") return { kind: "failed", error: "not a webhook agent", retryable: false };
  // Its own secret if configured, else a key derived for this agent alone: never the run-token key.
  const secret = runtime.secretEnv
    ? input.secret(runtime.secretEnv)
    : await input.purposeKey({ use: "webhook-agent", agentId: input.agent.id });
  if (!secret)
    return {
      kind: "failed",
      error: `secret ${runtime.secretEnv ?? "SWITCHBOARD_SIGNING_KEY"} is not set`,
      retryable: false,
    };
  const body = JSON.stringify({
    runId: input.runId,
    agentId: input.agent.id,
    sessionKey: input.sessionKey,
    sessionId: input.sessionId,
    message: input.message,
    history: input.history,
    provenance: input.message.provenance,
    context: input.context,
    // The whole system prompt a model runtime would send (SPEC §20): instructions, then the run context.
    system: input.system,
    attachments: input.attachments.map(({ text: _, ...file }) => file),
    tools: input.tools,
    runToken: input.runToken,
  });
  let response: Response;
  try {
    response = await fetch(runtime.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Switchboard-Signature": await signatureHeader(secret, body),
      },
      body,
      signal: input.signal,
    });
  } catch (cause) {
    return { kind: "failed", ...describeFetchFailure("agent webhook", cause, input.signal) };
  }
  if (response.status === 202) return { kind: "deferred" };
  if (!response.ok)
    return {
      kind: "failed",
      ...(await describeHttpFailure("agent webhook", response, [secret, input.runToken])),
    };
  const answerBody = await readJsonBody("agent webhook", response, input.signal);
  if (!answerBody.ok) return { kind: "failed", error: answerBody.error, retryable: answerBody.retryable };
  const answer = webhookAnswerSchema.safeParse(answerBody.json, { reportInput: true });
  if (!answer.success) {
    const missing = answer.error.issues[0]?.input === undefined;
    const error = missing
      ? "agent webhook answered without a text field"
      : `agent webhook answered an invalid result: ${describeZodError(answer.error)}`;
    return { kind: "failed", error, retryable: false };
  }
  return webhookReply(input, answer.data);
}

/**
 * A webhook agent's reported usage as the run's; `undefined` (unknown, not zeros) when it reported none,
 * or an empty `usage` object. A missing field of a partial report counts as 0.
 */
export function reportedRunUsage(
  reported: z.infer<typeof webhookAnswerSchema>["usage"],
): RunUsage | undefined {
  if (reported?.input === undefined && reported?.output === undefined && reported?.total === undefined)
    return undefined;
  const input = reported.input ?? 0;
  const output = reported.output ?? 0;
  return { input, output, total: reported.total ?? input + output };
}

/** The outcome of a webhook agent's answer, given at once or posted later to `/v1/runs/{runId}/result`. */
export function webhookReply(
  run: { runId: string; agent: AgentConfig | undefined },
  answer: z.infer<typeof webhookAnswerSchema>,
): Extract<RunOutcome, { kind: "done" }> {
  const usage = reportedRunUsage(answer.usage);
  // The agent reports one answer, so its usage is that of one call; none when it reported none.
  const callUsage = usage && { input: usage.input, output: usage.output, totalTokens: usage.total };
  return {
    kind: "done",
    text: answer.text,
    ...(usage ? { usage } : {}),
    messages: answer.text ? [assistantMessage(run, textContent(answer.text), "stop", callUsage)] : [],
  };
}
