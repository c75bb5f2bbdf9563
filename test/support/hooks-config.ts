/**
 * The hooks and outbound webhooks of the test configuration (SPEC §22; test-config.ts, vitest.config.ts).
 * Every hook's agent is `main`, whose scripted runtime echoes its input, so a test reads what the agent
 * received in its reply. Receivers are the fake services' `/receiver` (fake-services-server.ts).
 */
export const HOOK_SECRETS = {
  TEST_HOOK_SECRET: "hook-secret-0123456789abcdef",
  TEST_HOOK_OTHER_SECRET: "hook-other-secret-0123456789",
} as const;

/** The webchat peer whose direct session the hook `announce-own` runs in. */
export const HOOK_OWN_CHAT = "hook-own-peer";

export function hooksConfig(fakeServicesUrl: string): Record<string, unknown> {
  const receiver = (scenario: string, id: string) => `${fakeServicesUrl}/receiver/${scenario}/rec-${id}`;
  return {
    webhooks: { allowedOrigins: [fakeServicesUrl] },
    hooks: {
      // A failed build: the agent is told what to do above the fenced body; the outcome goes to a receiver.
      build: {
        agentId: "main",
        secretEnv: "TEST_HOOK_SECRET",
        message: "A build failed; look at it.",
        delivery: { mode: "webhook", url: receiver("ok", "hook-build") },
      },
      // Its answer posted to a chat of the webchat channel (a `webhook` channel: the fake services record it).
      announce: {
        agentId: "main",
        secretEnv: "TEST_HOOK_SECRET",
        delivery: { mode: "announce", channel: "webchat", to: "hook-room" },
      },
      // An announce naming no chat: the target's own channel (the webchat chat HOOK_OWN_CHAT opened).
      "announce-own": {
        agentId: "main",
        secretEnv: "TEST_HOOK_SECRET",
        sessionTarget: `session:agent:main:webchat:direct:${HOOK_OWN_CHAT}`,
        delivery: { mode: "announce" },
      },
      // A recorded model agent, to read the system prompt and message the model is sent.
      probe: {
        agentId: "platform-echo-rec",
        secretEnv: "TEST_HOOK_SECRET",
        message: "Summarize the payload.",
      },
      // No delivery; the quiet agent's own main session (not research's: the golden test reads that one never written).
      quiet: { agentId: "quiet", secretEnv: "TEST_HOOK_OTHER_SECRET", sessionTarget: "main" },
    },
  };
}
