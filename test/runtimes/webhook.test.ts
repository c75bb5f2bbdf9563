import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../src/auth/purpose-keys";
import { verifySignatureHeader } from "../../src/channels/signature";
import type { RunOutcome } from "../../src/runtimes/types";
import { runWebhook, webhookReply } from "../../src/runtimes/webhook";
import { fakeServicesUrl, newRecording, SIGNING_KEY, showsSecret, type WebhookPost } from "../support";
import { agentWith, LOOKUP_TOOL, runInput } from "./fixtures";

/** Webhook secrets come from the Worker's own bindings, as in the run engine. */
const bindings = env as unknown as Record<string, string>;

/** A webhook agent whose URL is the fake server's `scenario`, recorded; `query` ends the URL. */
function hookAgent(scenario: string, options: { secretEnv?: string; query?: string } = {}) {
  const recording = newRecording<WebhookPost>();
  const url = `${fakeServicesUrl()}/webhook/${scenario}/${recording.segment}${options.query ?? ""}`;
  const agent = agentWith({
    type: "webhook",
    url,
    ...(options.secretEnv ? { secretEnv: options.secretEnv } : {}),
  });
  return { agent, recording };
}

function hookInput(
  agent: ReturnType<typeof hookAgent>["agent"],
  text: string,
  secrets?: Record<string, string>,
) {
  return runInput(agent, text, {
    secret: (name) => (secrets ?? bindings)[name],
    tools: [LOOKUP_TOOL],
    context: "Reply step 1 of 2.",
  });
}

function expectFailed(outcome: RunOutcome): { error: string; retryable: boolean } {
  if (outcome.kind !== "failed") throw new Error(`expected failed, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe("runWebhook against an agent webhook", () => {
  it("posts the signed run and takes a synchronous answer", async () => {
    const { agent, recording } = hookAgent("sync");
    const input = hookInput(agent, "hello hook");
    const outcome = await runWebhook(input);
    expect(outcome).toEqual({
      kind: "done",
      text: "webhook got: hello hook",
      usage: { input: 4, output: 2, total: 6 },
      messages: [
        {
          id: expect.any(String),
          role: "assistant",
          content: [{ type: "text", text: "webhook got: hello hook" }],
          // The config names no provider, so the runtime type; the model is the agent's configured one.
          model: "scripted/default",
          provider: "webhook",
          stopReason: "stop",
          usage: { input: 4, output: 2, totalTokens: 6 },
          timestamp: expect.any(Number),
          runId: input.runId,
        },
      ],
    });

    const [request, ...more] = await recording.requests();
    expect(more).toEqual([]);
    if (!request) throw new Error("the webhook received nothing");
    const header = request.headers["x-switchboard-signature"];
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const agentSecret = await deriveKey(SIGNING_KEY, { use: "webhook-agent", agentId: "main" });
    expect(await verifySignatureHeader(agentSecret, header, request.body)).toBe(true);
    // The run-token root key itself never signs what a third party can read.
    expect(await verifySignatureHeader(SIGNING_KEY, header, request.body)).toBe(false);
    expect(await verifySignatureHeader("another-key", header, request.body)).toBe(false);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.json).toEqual({
      runId: input.runId,
      agentId: "main",
      sessionKey: input.sessionKey,
      sessionId: input.sessionId,
      message: input.message,
      history: [],
      attachments: [],
      context: "Reply step 1 of 2.",
      system: input.system,
      tools: [LOOKUP_TOOL],
      runToken: input.runToken,
    });
  });

  it("records no usage for an answer without one, or with an empty one: unknown, not zeros", () => {
    const run = { runId: "run-1", agent: agentWith({ type: "webhook", url: "https://agent.example/run" }) };
    for (const answer of [{ text: "done" }, { text: "done", usage: {} }]) {
      const outcome = webhookReply(run, answer);
      expect(outcome).not.toHaveProperty("usage");
      expect(outcome.messages).toEqual([expect.objectContaining({ role: "assistant", stopReason: "stop" })]);
      expect(outcome.messages[0]).not.toHaveProperty("usage");
    }
    // A partial report counts what it says.
    expect(webhookReply(run, { text: "done", usage: { input: 3 } }).usage).toEqual({
      input: 3,
      output: 0,
      total: 3,
    });
  });

  it("signs with the secret named by secretEnv", async () => {
    const { agent } = hookAgent("sync", { secretEnv: "HOOK_SECRET", query: "?secret=hook-secret-1" });
    const outcome = await runWebhook(hookInput(agent, "hi", { HOOK_SECRET: "hook-secret-1" }));
    expect(outcome).toMatchObject({ kind: "done", text: "webhook got: hi" });
  });

  it("fails when the agent refuses the signature (401), not retryable", async () => {
    const { agent } = hookAgent("sync", { secretEnv: "HOOK_SECRET", query: "?secret=hook-secret-1" });
    const failed = expectFailed(await runWebhook(hookInput(agent, "hi", { HOOK_SECRET: "wrong-secret" })));
    expect(failed.retryable).toBe(false);
    expect(failed.error).toContain("HTTP 401");
    expect(failed.error).toContain("bad X-Switchboard-Signature");
  });

  it("fails clearly, without posting, when the secret is missing", async () => {
    const { agent, recording } = hookAgent("sync", { secretEnv: "HOOK_SECRET" });
    const failed = expectFailed(await runWebhook(hookInput(agent, "hi", {})));
    expect(failed).toEqual({ kind: "failed", error: "secret HOOK_SECRET is not set", retryable: false });
    expect(await recording.requests()).toEqual([]);
  });

  it("defers the run when the agent answers 202", async () => {
    const { agent, recording } = hookAgent("async");
    expect(await runWebhook(hookInput(agent, "take your time"))).toEqual({ kind: "deferred" });
    const [request] = await recording.requests();
    expect(request?.json.runToken).toEqual(expect.any(String));
  });

  it("fails retryable on HTTP 500 with the status and a body excerpt", async () => {
    const failed = expectFailed(await runWebhook(hookInput(hookAgent("status-500").agent, "hi")));
    expect(failed.retryable).toBe(true);
    expect(failed.error).toContain("agent webhook answered HTTP 500");
    expect(failed.error).toContain("fake webhook status 500");
  });

  it("masks the run token a refusing webhook quotes back", async () => {
    const input = hookInput(hookAgent("echo-token").agent, "hi");
    const failed = expectFailed(await runWebhook(input));
    expect(failed.error).toContain("agent webhook answered HTTP 400");
    expect(failed.error).toContain(`run token refused: ${input.runToken.slice(0, 6)}…`);
    expect(showsSecret(failed.error, input.runToken), failed.error).toBe(false);
  });

  it("fails, not retryable, on an answer without text", async () => {
    const failed = expectFailed(await runWebhook(hookInput(hookAgent("no-text").agent, "hi")));
    expect(failed).toEqual({
      kind: "failed",
      error: "agent webhook answered without a text field",
      retryable: false,
    });
  });

  it("stops waiting when the run's signal aborts (timeout)", async () => {
    const { agent } = hookAgent("slow/10000");
    const started = Date.now();
    const input = { ...hookInput(agent, "hi"), signal: AbortSignal.timeout(100) };
    const failed = expectFailed(await runWebhook(input));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failed.error).toContain("agent webhook call aborted");
    expect(failed.retryable).toBe(false);
  });

  it("says aborted, not malformed, when the signal aborts while the answer is arriving", async () => {
    const input = { ...hookInput(hookAgent("stall/10000").agent, "hi"), signal: AbortSignal.timeout(100) };
    const failed = expectFailed(await runWebhook(input));
    expect(failed.error).toContain("agent webhook call aborted");
    expect(failed.retryable).toBe(false);
  });
});
