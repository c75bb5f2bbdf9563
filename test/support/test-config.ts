import { hooksConfig } from "./hooks-config";
import { platformChannels } from "./platforms/channels-config";

/**
 * The configuration the Worker runs with in tests (vitest.config.ts binds it as SWITCHBOARD_CONFIG):
 * the three demo agents with the SPEC's default visibility (`tree`), plus agents and channels that
 * talk to the fake services of test/support/fake-services-server.ts. Node-side: read by vitest.config.ts only.
 */
/** The agents of the fallback and cost tests: `<primary scenario>` first, then the chain it falls back to. */
function fallbackAgents(fakeServicesUrl: string): Record<string, unknown>[] {
  const pricing = { inputPerMTok: 100, outputPerMTok: 300 };
  const runtime = (scenario: string, model: string, extra: Record<string, unknown> = {}) => ({
    type: "openai",
    baseUrl: `${fakeServicesUrl}/openai/${scenario}`,
    model,
    ...extra,
  });
  const chain = (id: string, primary: string, fallbacks: Record<string, unknown>[]) => ({
    id,
    model: "primary-model",
    runtime: runtime(`${primary}/rec-${id}-primary`, "primary-model"),
    fallbacks,
  });
  const fallback = (id: string, scenario = "usage") =>
    runtime(`${scenario}/rec-${id}-fallback`, "fallback-model", { pricing });
  return [
    chain("fallback-503", "status-503", [fallback("fallback-503")]),
    chain("fallback-429", "status-429", [fallback("fallback-429")]),
    chain("fallback-400", "status-400", [fallback("fallback-400")]),
    chain("fallback-all", "status-503", [
      fallback("fallback-all", "status-502"),
      runtime("status-500/rec-fallback-all-last", "last-model"),
    ]),
    { id: "model-priced", model: "priced-model", runtime: runtime("usage", "priced-model", { pricing }) },
  ];
}

export function testConfig(
  fakeServicesUrl: string,
  discordPublicKey = "0".repeat(64),
): Record<string, unknown> {
  const model = (scenario: string) => ({
    type: "openai",
    baseUrl: `${fakeServicesUrl}/openai/${scenario}`,
    model: "fake-model",
  });
  const scripted = (rules: unknown[]) => ({ type: "scripted", rules });
  // Chat platforms (SPEC §21) against their stand-ins (test/support/platforms/outbound-stand-in.ts).
  const liveTelegram = {
    platform: "telegram",
    botTokenEnv: "TEST_TELEGRAM_BOT_TOKEN",
    apiBaseUrl: `${fakeServicesUrl}/telegram`,
  };
  const liveSlack = {
    platform: "slack",
    botTokenEnv: "TEST_SLACK_BOT_TOKEN",
    signingSecretEnv: "TEST_SLACK_SIGNING_SECRET",
    apiBaseUrl: `${fakeServicesUrl}/slack`,
  };
  const liveDiscord = {
    platform: "discord",
    botTokenEnv: "TEST_DISCORD_BOT_TOKEN",
    // The key pair of this run (vitest.config.ts), so a signed interaction round-trips (round-trip.test.ts).
    publicKey: discordPublicKey,
    applicationId: "112233445566778899",
    apiBaseUrl: `${fakeServicesUrl}/discord`,
  };
  return {
    ...hooksConfig(fakeServicesUrl),
    session: {
      mainKey: "main",
      scope: "per-sender",
      agentToAgent: { maxPingPongTurns: 2 },
      // One rule per matcher kind, for the send-policy tests.
      sendPolicy: {
        rules: [
          { action: "deny", match: { channel: "discord", chatType: "channel" } },
          { action: "deny", match: { keyPrefix: "cron:quiet" } },
          { action: "deny", match: { rawKeyPrefix: "agent:relay:hook:" } },
        ],
      },
    },
    tools: {
      profile: "coding",
      sessions: { visibility: "tree" },
      agentToAgent: { enabled: true, allow: ["main", "research", "ops"] },
      // Small limits, so every attachment check can be reached with small files.
      sessions_spawn: { attachments: { enabled: true, maxFiles: 3, maxFileBytes: 64, maxTotalBytes: 128 } },
    },
    agents: {
      defaults: { subagents: { maxSpawnDepth: 1 } },
      list: [
        {
          id: "main",
          name: "Main assistant",
          model: "scripted/echo",
          runtime: scripted([
            { match: "ping", reply: "pong" },
            { match: "*", reply: "Got it: {{message}}" },
          ]),
          subagents: { allowAgents: ["research", "ops"] },
        },
        {
          id: "research",
          name: "Researcher",
          model: "scripted/research",
          // A context window of its own (contextTokens); the other agents list the default.
          contextWindow: 32_000,
          // Instructions and a zone of its own, and a rule that answers with its run's system prompt
          // (test/prompt/run-context.test.ts), so a test can read what a run was given.
          instructions: "You are the researcher. Cite your sources.",
          timezone: "Asia/Tokyo",
          runtime: scripted([
            { match: "show your system prompt", reply: "{{system}}" },
            { match: "*", reply: "Findings: {{message}}" },
          ]),
        },
        {
          id: "ops",
          name: "Operations",
          model: "scripted/ops",
          sandbox: true,
          tools: { profile: "messaging" },
          runtime: scripted([{ match: "*", reply: "ANNOUNCE_SKIP" }]),
        },
        {
          // Answers every step of an agent-to-agent exchange, so tests can count the turns.
          id: "relay",
          model: "scripted/relay",
          runtime: scripted([
            { match: "announce step", reply: "Announcement: {{message}}" },
            { match: "reply step", reply: "turn reply" },
            { match: "*", reply: "relay got: {{message}}" },
          ]),
        },
        {
          // A depth-1 orchestrator (maxSpawnDepth 2): spawns a worker when its task says so.
          id: "boss",
          model: "scripted/boss",
          subagents: { maxSpawnDepth: 2, allowAgents: ["worker"], archiveAfterMinutes: 5 },
          runtime: scripted([
            {
              match: "delegate",
              toolCall: {
                name: "sessions_spawn",
                args: { task: "work on {{message}}", agentId: "worker", label: "work" },
              },
              reply: "delegated",
            },
            { match: "Sub-agent completion", reply: "Boss update: the worker finished." },
            { match: "*", reply: "boss got: {{message}}" },
          ]),
        },
        {
          // Routed by session key (index.routeByKey below): its sessions spread over the three shards.
          id: "public",
          model: "scripted/public",
          subagents: { maxSpawnDepth: 2, allowAgents: ["public"] },
          runtime: scripted([{ match: "*", reply: "public: {{message}}" }]),
        },
        {
          id: "worker",
          model: "scripted/worker",
          subagents: { maxSpawnDepth: 2 },
          runtime: scripted([
            { match: "silent", reply: "ANNOUNCE_SKIP" },
            { match: "*", reply: "worker result" },
          ]),
        },
        {
          // Stops every exchange at once and never announces.
          id: "quiet",
          model: "scripted/quiet",
          runtime: scripted([
            { match: "reply step", reply: "REPLY_SKIP" },
            { match: "announce step", reply: "ANNOUNCE_SKIP" },
            { match: "*", reply: "quiet got: {{message}}" },
          ]),
        },
        { id: "model-echo", model: "fake-model", runtime: model("echo") },
        // Its reply streams in pieces 600 ms apart (SPEC §21 Live: drafts edited at most once a second).
        { id: "live-drip", model: "fake-model", runtime: model("drip/600") },
        { id: "model-tools", model: "fake-model", runtime: model("tools/sessions_list") },
        { id: "model-500", model: "fake-model", runtime: model("status-500") },
        { id: "model-429", model: "fake-model", runtime: model("status-429") },
        { id: "model-slow", model: "fake-model", runtime: model("slow/3000") },
        { id: "model-malformed", model: "fake-model", runtime: model("malformed") },
        // Compaction (test/session/runs/compaction.test.ts): a small window, so a few kilobytes of history
        // fill it; one model that summarizes (echo), one that fails only when asked to summarize.
        {
          id: "model-compact",
          model: "fake-model",
          contextWindow: 4000,
          tools: { profile: "minimal" },
          runtime: { ...model("echo/rec-model-compact"), maxOutputTokens: 500 },
        },
        {
          id: "model-compact-fails",
          model: "fake-model",
          contextWindow: 4000,
          tools: { profile: "minimal" },
          runtime: { ...model("fail-on/compacting/rec-model-compact-fails"), maxOutputTokens: 500 },
        },
        // Redaction (test/session/runs/error-redaction.test.ts): a model that quotes the API key it refuses, and a
        // webhook agent that quotes its run token.
        {
          id: "model-auth-echo",
          model: "fake-model",
          runtime: { ...model("echo-auth"), apiKeyEnv: "FAKE_MODEL_KEY" },
        },
        {
          id: "hook-echo-token",
          model: "webhook",
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/echo-token/rec-hook-echo-token` },
        },
        {
          id: "hook-sync",
          model: "webhook",
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/sync` },
        },
        {
          id: "hook-async",
          model: "webhook",
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/async` },
        },
        // Run-engine tests (test/session/runs): the same fakes, recorded under `rec-<agent id>`, so a test can read
        // exactly what the model or webhook was sent (each test filters by its own session or message).
        // Anthropic's Messages API (fake-anthropic.ts): spawns a sub-agent, is overloaded once after it.
        {
          id: "anthropic-spawn-rec",
          subagents: { allowAgents: ["*"] },
          thinking: "low",
          runtime: {
            type: "anthropic",
            baseUrl: `${fakeServicesUrl}/anthropic/tools-flaky/sessions_spawn/rec-anthropic-spawn-rec`,
            model: "claude-sonnet-4-5",
            apiKeyEnv: "FAKE_MODEL_KEY",
            headers: { "cf-aig-authorization": { env: "FAKE_MODEL_KEY" } },
          },
        },
        // Chat platform groups (test/platforms): what the model is sent, context included.
        { id: "platform-echo-rec", model: "fake-model", runtime: model("echo/rec-platform-echo-rec") },
        {
          id: "model-tools-rec",
          model: "fake-model",
          instructions: "You are the tools agent. Use sessions_list when asked.",
          runtime: model("tools/sessions_list/rec-model-tools-rec"),
        },
        {
          // Offered the messaging profile; its model asks for agents_list, which that profile lacks.
          id: "model-tools-msg",
          model: "fake-model",
          tools: { profile: "messaging" },
          runtime: model("tools/agents_list/rec-model-tools-msg"),
        },
        { id: "model-429-rec", model: "fake-model", runtime: model("status-429/rec-model-429-rec") },
        { id: "model-slow-rec", model: "fake-model", runtime: model("slow/1500/rec-model-slow-rec") },
        // Spawns a sub-agent (its task: the message), then takes 1.5 s to answer: a run to crash mid-way.
        {
          id: "model-spawn-slow",
          model: "fake-model",
          runtime: model("tools-slow/sessions_spawn/rec-model-spawn-slow"),
          subagents: { allowAgents: ["*"] },
        },
        {
          id: "hook-sync-rec",
          model: "webhook",
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/sync/rec-hook-sync-rec` },
        },
        {
          id: "hook-async-rec",
          model: "webhook",
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/async/rec-hook-async-rec` },
        },
        // Steering into the active run (test/messaging/send-steer.test.ts): a scripted step that waits
        // for a steered message and answers with it, and a model whose first round is a slow tool call.
        {
          id: "steerable",
          model: "scripted/steerable",
          runtime: scripted([
            { match: "wait for steering", waitForSteeringMs: 10_000, reply: "steered: {{steered}}" },
            { match: "*", reply: "steerable got: {{message}}" },
          ]),
        },
        { id: "model-steer", model: "fake-model", runtime: model("slow-tool/1500/rec-model-steer") },
        // Retention's `maxMessages` (test/session/transcript/history-gap.test.ts): a short transcript.
        {
          id: "trimmed",
          model: "scripted/trimmed",
          maintenance: { maxMessages: 4 },
          runtime: scripted([{ match: "*", reply: "trimmed got: {{message}}" }]),
        },
        // Retention's `runRetention` (test/session/store/event-retention.test.ts): runs and events kept an
        // hour; `searchRetention` (test/maintenance/search-retention.test.ts): older messages never indexed.
        {
          id: "retained",
          model: "scripted/retained",
          maintenance: { runRetention: "1h", searchRetention: "30d" },
          runtime: scripted([{ match: "*", reply: "retained got: {{message}}" }]),
        },
        // One slow model call: a message steered in meanwhile comes too late for the run to see it.
        { id: "model-steer-late", model: "fake-model", runtime: model("slow/1500/rec-model-steer-late") },
        // Sub-agent tests (test/subagents).
        {
          // May spawn any agent; its runs spawn with attachments or yield when a message asks for it.
          id: "spawner",
          model: "scripted/spawner",
          subagents: { allowAgents: ["*"] },
          runtime: scripted([
            {
              match: "attach files",
              toolCall: {
                name: "sessions_spawn",
                args: {
                  task: "summarize the files",
                  agentId: "worker",
                  attachments: [
                    { name: "notes.txt", content: "TOP-SECRET-NOTES" },
                    { name: "data.bin", content: "AAECAw==", encoding: "base64" },
                  ],
                },
              },
              reply: "spawned with files",
            },
            {
              match: "yield now",
              toolCall: { name: "sessions_yield", args: { message: "waiting for my sub-agent" } },
              reply: "",
            },
            // A tool turn that always runs to its end: tool result, then a final answer.
            { match: "look around", toolCall: { name: "agents_list", args: {} }, reply: "looked around" },
            // Reads its own history as a tool and answers with the result as the model was given it.
            {
              match: "read my history",
              toolCall: { name: "sessions_history", args: { sessionKey: "current", limit: 5 } },
              reply: "history: {{result}}",
            },
            // A completion the user needs no update for (its label says so): intentional silence.
            { match: "nothing to tell", reply: "NO_REPLY" },
            { match: "Sub-agent completion", reply: "Update: {{message}}" },
            { match: "*", reply: "spawner got: {{message}}" },
          ]),
        },
        {
          // Sandboxed, with the coding profile, so it can call sessions_spawn.
          id: "vault",
          model: "scripted/vault",
          sandbox: true,
          subagents: { allowAgents: ["main", "ops"] },
          runtime: scripted([{ match: "*", reply: "vault got: {{message}}" }]),
        },
        {
          // One sub-agent run in flight at a time; its runs wait (202) until the test posts the result.
          id: "capped",
          model: "webhook",
          subagents: { maxConcurrent: 1 },
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/async` },
        },
        // Collector tests (test/session/collectors/collectors.test.ts): requesters with their own tools.swarm caps.
        {
          id: "swarm",
          model: "scripted/swarm",
          subagents: { allowAgents: ["*"] },
          swarm: {
            maxConcurrent: 8,
            maxChildrenPerGroup: 200,
            maxTotalPerGroup: 200,
            defaultAgentId: "hook-async",
          },
          runtime: scripted([
            // A collector from a run: its group defaults to the run's, its agent to swarm.defaultAgentId.
            {
              match: "collect now",
              toolCall: {
                name: "sessions_spawn",
                args: { task: "collected job", label: "from-run", collect: true },
              },
              reply: "spawned a collector",
            },
            { match: "*", reply: "swarm got: {{message}}" },
          ]),
        },
        {
          id: "swarm-small",
          model: "scripted/swarm-small",
          subagents: { allowAgents: ["*"], maxChildrenPerAgent: 1 },
          swarm: { maxConcurrent: 1, maxChildrenPerGroup: 2, maxTotalPerGroup: 3, waitTimeoutSecondsMax: 1 },
          runtime: scripted([{ match: "*", reply: "swarm-small got: {{message}}" }]),
        },
        { id: "swarm-off", model: "scripted/swarm-off", swarm: false },
        {
          // A depth-1 orchestrator (maxSpawnDepth 2) whose runs are recorded, to see the tools it is offered.
          id: "boss-rec",
          model: "webhook",
          subagents: { maxSpawnDepth: 2 },
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/sync/rec-boss-rec` },
        },
        {
          // A depth-1 orchestrator whose runs wait (202) until the test posts the result: one that spawns
          // and yields while its own children work (sessions_yield, subagents wait).
          id: "boss-async-rec",
          model: "webhook",
          subagents: { maxSpawnDepth: 2 },
          runtime: { type: "webhook", url: `${fakeServicesUrl}/webhook/async/rec-boss-async-rec` },
        },
        // Fallbacks and cost (test/session/runs/fallbacks.test.ts): a primary model that fails, answered by
        // the next runtime of the chain; each model recorded under its own `rec-` id. Pricing of
        // $100 per million input and $300 per million output tokens ("usage" answers 11 in + 7 out: $0.0032).
        ...fallbackAgents(fakeServicesUrl),
        // structured_output (test/subagents/structured-output.test.ts): a model that calls it with its
        // message as the arguments, and one whose round after the call is slow (a crash mid-run).
        {
          id: "model-structured",
          model: "fake-model",
          runtime: model("tools/structured_output/rec-model-structured"),
        },
        {
          id: "model-structured-slow",
          model: "fake-model",
          runtime: model("tools-slow/structured_output/rec-model-structured-slow"),
        },
        // SPEC §20 budgets (test/session/runs/budgets.test.ts): a scripted run of "ping" uses 1 + 1 tokens;
        // one `usage` model call costs 11 × $0.05 + 7 × $0.10 = $1.25 at this pricing.
        {
          id: "budget-tokens",
          model: "scripted/budget",
          runtime: scripted([{ match: "ping", reply: "pong" }]),
          budget: { tokensPerDay: 2 },
        },
        {
          id: "budget-cost",
          model: "fake-model",
          runtime: {
            ...model("usage"),
            pricing: { inputPerMTok: 50_000, outputPerMTok: 100_000 },
          },
          budget: { costUsdPerDay: 2, tokensPerDay: 50_000 },
        },
        {
          id: "budget-rate",
          model: "scripted/budget",
          runtime: scripted([{ match: "*", reply: "ok" }]),
          budget: { runsPerMinutePerSession: 2 },
        },
      ],
    },
    channels: {
      discord: { webhookUrl: `${fakeServicesUrl}/channel/ok`, owners: ["owner-1"] },
      telegram: { webhookUrl: `${fakeServicesUrl}/channel/ok` },
      slack: { webhookUrl: `${fakeServicesUrl}/channel/flaky/2` },
      webchat: { webhookUrl: `${fakeServicesUrl}/channel/ok`, agentId: "main" },
      // Busy sessions (test/channels/busy.test.ts): messages within the debounce answered by one run.
      "webchat-collect": {
        webhookUrl: `${fakeServicesUrl}/channel/ok`,
        agentId: "platform-echo-rec",
        busy: "collect",
        debounceMs: 10_000,
      },
      // No outbound webhook: its deliveries can only be dead-lettered (test/queue/outbound.test.ts).
      sms: {},
      ...platformChannels(fakeServicesUrl, discordPublicKey),
      // The final reply alone (`streaming: "off"`): round-trip.test.ts reads the reply's own call.
      "tg-bot": { ...liveTelegram, streaming: "off" },
      "slack-bot": { ...liveSlack, streaming: "off" },
      "discord-bot": { ...liveDiscord, streaming: "off" },
      // Live replies (SPEC §21 Live; test/platforms/live.test.ts): a model that writes its reply over
      // seconds, shown as it comes (the default, `edit`) or only at the end.
      "tg-live": { ...liveTelegram, agentId: "live-drip" },
      "tg-live-off": { ...liveTelegram, agentId: "live-drip", streaming: "off" },
      "tg-live-interrupt": { ...liveTelegram, agentId: "live-drip", busy: "interrupt" },
      "slack-live": { ...liveSlack, agentId: "live-drip" },
      "discord-live": { ...liveDiscord, agentId: "live-drip" },
      // Busy modes on platform channels (test/platforms/busy.test.ts), against the outbound stand-in.
      ...busyChannels(fakeServicesUrl, discordPublicKey),
    },
    // One agent routed by session key (SPEC §24; test/integration/route-by-key.test.ts).
    index: { routeByKey: ["public"] },
  };
}

/** One platform channel per busy mode (SPEC §21 Busy sessions); `steerable` waits for steering. */
function busyChannels(fakeServicesUrl: string, discordPublicKey: string): Record<string, unknown> {
  const telegram = (busy: string, agentId: string) => ({
    platform: "telegram",
    botTokenEnv: "TEST_TELEGRAM_BOT_TOKEN",
    apiBaseUrl: `${fakeServicesUrl}/telegram`,
    agentId,
    busy,
    debounceMs: 2000,
  });
  const discord = (busy: string, agentId: string) => ({
    platform: "discord",
    botTokenEnv: "TEST_DISCORD_BOT_TOKEN",
    publicKey: discordPublicKey,
    applicationId: "112233445566778899",
    apiBaseUrl: `${fakeServicesUrl}/discord`,
    agentId,
    busy,
    debounceMs: 2000,
  });
  return {
    "tg-steer": telegram("steer", "steerable"),
    "tg-interrupt": telegram("interrupt", "steerable"),
    "tg-collect": telegram("collect", "main"),
    "slack-interrupt": {
      platform: "slack",
      botTokenEnv: "TEST_SLACK_BOT_TOKEN",
      signingSecretEnv: "TEST_SLACK_SIGNING_SECRET",
      apiBaseUrl: `${fakeServicesUrl}/slack`,
      agentId: "steerable",
      busy: "interrupt",
    },
    "discord-collect": discord("collect", "main"),
    "discord-steer": discord("steer", "steerable"),
    "discord-interrupt": discord("interrupt", "steerable"),
  };
}
