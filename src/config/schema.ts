import { z } from "zod";
import { cronConfigSchema } from "../cron/config-schema";
import { MAX_JOBS_PER_AGENT } from "../cron/job-schema";
import { MAX_CHANNEL_NAME_CHARS, MAX_MODEL_CHARS } from "../limits";
import { MAX_TOOL_ARGUMENTS_DEPTH } from "../transcript/message";
import { nestsDeeperThan } from "../validation";
import { allowedWebhook, configuredOrigin } from "../webhooks/origin";
import { checkRouteByKey, indexSettings } from "./index-routing";
import { maintenanceSchema } from "./maintenance";

const agentIdPattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const agentId = z
  .string()
  .trim()
  .toLowerCase()
  .regex(agentIdPattern, "agent id must match [a-z0-9][a-z0-9_-]{0,63}");
/** What a session key's `<channel>` segment can be (src/keys/rest.ts), so inbound keys parse back. */
const CHANNEL_NAME_PATTERN = new RegExp(`^[a-z0-9][a-z0-9_.-]{0,${MAX_CHANNEL_NAME_CHARS - 1}}$`);
/** A model name; a session stores it as its model override. */
const modelName = z.string().min(1).max(MAX_MODEL_CHARS);

export const toolNames = [
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "sessions_yield",
  "subagents",
  "session_status",
  "agents_list",
  "sessions",
  "sessions_search",
  "agents_wait",
  "structured_output",
  "cron",
] as const;
export type ToolName = (typeof toolNames)[number];

export const toolProfiles = ["minimal", "coding", "messaging", "full"] as const;
export type ToolProfile = (typeof toolProfiles)[number];

/** Lenient readers: SPEC §2 says which values are clamped or defaulted instead of rejected. */
const maxPingPongTurns = z
  .unknown()
  .optional()
  .transform((value) => {
    if (typeof value !== "number" || !Number.isFinite(value)) return 5;
    return Math.min(20, Math.max(0, Math.floor(value)));
  });
const visibility = z
  .unknown()
  .optional()
  .transform((value) => {
    const lower = typeof value === "string" ? value.trim().toLowerCase() : "";
    return lower === "self" || lower === "tree" || lower === "agent" || lower === "all" ? lower : "tree";
  });

const toolPolicy = z.strictObject({
  profile: z.enum(toolProfiles).optional(),
  alsoAllow: z.array(z.string()).default([]),
});

const sendPolicyRule = z.strictObject({
  action: z.enum(["allow", "deny"]),
  match: z
    .strictObject({
      channel: z.string().optional(),
      chatType: z.enum(["direct", "group", "channel"]).optional(),
      keyPrefix: z.string().optional(),
      rawKeyPrefix: z.string().optional(),
    })
    .default({}),
});

/** A `/re/flags` rule must compile, so a bad pattern fails at config load, not in a run. */
function isValidRulePattern(pattern: string): boolean {
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (!regex) return true;
  try {
    new RegExp(regex[1] ?? "", regex[2]);
    return true;
  } catch {
    return false;
  }
}

const scriptedRule = z.strictObject({
  match: z.string().refine(isValidRulePattern, "not a valid /regular expression/"),
  reply: z.string().optional(),
  toolCall: z
    .strictObject({
      name: z.string(),
      // Stored in the transcript as the call's arguments, so bounded like a model's (src/limits.ts).
      args: z
        .record(z.string(), z.unknown())
        .refine(
          (args) => !nestsDeeperThan(args, MAX_TOOL_ARGUMENTS_DEPTH),
          `nested deeper than ${MAX_TOOL_ARGUMENTS_DEPTH} levels`,
        )
        .default({}),
    })
    .optional(),
  /** Waits up to this long for a message steered into the run (sessions_send mode=steer): `{{steered}}`. */
  waitForSteeringMs: z.number().int().min(0).max(60_000).optional(),
});

/** Switchboard's own credentials: a secret handed to a model provider, channel or agent is never one. */
const RESERVED_SECRETS = new Set([
  "SWITCHBOARD_SIGNING_KEY",
  "SWITCHBOARD_SIGNING_KEY_PREVIOUS",
  "SWITCHBOARD_ADMIN_TOKEN",
  "SWITCHBOARD_AGENT_TOKENS",
]);
const secretName = z
  .string()
  .min(1)
  .refine(
    (name) => !RESERVED_SECRETS.has(name),
    "names one of Switchboard's own credentials; leave it out to use a key derived for this purpose, or name a secret of its own",
  );

/** SPEC §20 `agents.list[].thinking`: mapped to each provider's reasoning control (runtimes/). */
export const thinkingLevels = ["off", "minimal", "low", "medium", "high"] as const;
export type ThinkingLevel = (typeof thinkingLevels)[number];

/** `runtime.headers`: extra request headers whose values come from secrets, never from the document. */
const secretHeaders = z.record(
  z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "not a valid HTTP header name"),
  z.strictObject({ env: secretName }),
);

/** `runtime.pricing`: USD per million tokens, for `estimatedCostUsd` (runtimes/pricing.ts). */
const pricing = z.strictObject({
  inputPerMTok: z.number().min(0),
  outputPerMTok: z.number().min(0),
  cacheReadPerMTok: z.number().min(0).optional(),
  cacheWritePerMTok: z.number().min(0).optional(),
});

/** What every model runtime may set for its calls. */
const modelParameters = {
  model: modelName,
  temperature: z.number().min(0).max(2).optional(),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).optional(),
  pricing: pricing.optional(),
};

const openAiRuntime = z.strictObject({
  type: z.literal("openai"),
  baseUrl: z.url().default("https://api.openai.com/v1"),
  apiKeyEnv: secretName.optional(),
  headers: secretHeaders.optional(),
  ...modelParameters,
});
const anthropicRuntime = z.strictObject({
  type: z.literal("anthropic"),
  baseUrl: z.url().default("https://api.anthropic.com"),
  apiKeyEnv: secretName.optional(),
  headers: secretHeaders.optional(),
  ...modelParameters,
});
/** The Workers AI binding `AI`; through an AI Gateway when `gateway` is set. */
const workersAiRuntime = z.strictObject({
  type: z.literal("workers-ai"),
  gateway: z
    .strictObject({
      id: z.string().min(1),
      skipCache: z.boolean().optional(),
      cacheTtl: z.number().int().min(0).optional(),
    })
    .optional(),
  ...modelParameters,
});

/** The runtimes that call a model: the ones a fallback may name (SPEC §20). */
export const modelRuntimeSchema = z.discriminatedUnion("type", [
  openAiRuntime,
  anthropicRuntime,
  workersAiRuntime,
]);
export type ModelRuntime = z.infer<typeof modelRuntimeSchema>;

export const runtimeSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("scripted"), rules: z.array(scriptedRule).default([]) }),
  openAiRuntime,
  anthropicRuntime,
  workersAiRuntime,
  z.strictObject({ type: z.literal("webhook"), url: z.url(), secretEnv: secretName.optional() }),
]);

/** SPEC §20 budgets (ours): past a daily cap or the per-session rate, no run starts. */
const budget = z.strictObject({
  costUsdPerDay: z.number().positive().optional(),
  tokensPerDay: z.number().int().positive().optional(),
  runsPerMinutePerSession: z.number().int().positive().optional(),
});

/** An IANA time zone the runtime knows (the run context's local time). */
const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, "not an IANA time zone (e.g. Europe/Berlin)");

/** `agents.list[].instructions` is at most 64 KiB of UTF-8. */
export const MAX_INSTRUCTIONS_BYTES = 64 * 1024;
const instructions = z
  .string()
  .refine(
    (text) => new TextEncoder().encode(text).length <= MAX_INSTRUCTIONS_BYTES,
    `longer than ${MAX_INSTRUCTIONS_BYTES} bytes (64 KiB)`,
  );

const subagentSettings = z.strictObject({
  maxSpawnDepth: z.number().int().min(1).max(5).optional(),
  maxChildrenPerAgent: z.number().int().min(1).max(20).optional(),
  maxConcurrent: z.number().int().min(1).optional(),
  runTimeoutSeconds: z.number().int().min(0).optional(),
  archiveAfterMinutes: z.number().int().min(0).optional(),
  announceTimeoutMs: z.number().int().positive().optional(),
  model: modelName.optional(),
  thinking: z.enum(thinkingLevels).optional(),
  allowAgents: z.array(z.string()).optional(),
  requireAgentId: z.boolean().optional(),
});

/**
 * SPEC §15 collectors (`tools.swarm`, OpenClaw's bounds). `false` turns them off; an agent's own
 * `swarm` is merged over the global one (config/agents.ts swarmSettings).
 */
const swarmFields = {
  enabled: z.boolean().optional(),
  maxConcurrent: z.number().int().min(1).max(1000).optional(),
  maxChildrenPerGroup: z.number().int().min(1).max(10_000).optional(),
  maxTotalPerGroup: z.number().int().min(1).max(100_000).optional(),
  waitTimeoutSecondsMax: z.number().int().min(1).max(86_400).optional(),
  defaultAgentId: z.string().optional(),
};
const swarmSettings = z.union([z.literal(false), z.strictObject(swarmFields)]);

/** Whether a provider can honour a thinking level: Workers AI has no reasoning control we map (only `off`). */
export function honoursThinking(type: ModelRuntime["type"], level: ThinkingLevel): boolean {
  return type !== "workers-ai" || level === "off";
}

const agentFields = z.strictObject({
  id: agentId,
  name: z.string().optional(),
  runtime: runtimeSchema.default({ type: "scripted", rules: [] }),
  /** The model name shown for scripted and webhook agents; a model runtime's own `model` is its name. */
  model: modelName.default("scripted/default"),
  /** The agent's own system prompt (SPEC §20), first in every run's system prompt. */
  instructions: instructions.optional(),
  timezone: timeZone.optional(),
  thinking: z.enum(thinkingLevels).optional(),
  /** Tried in order when a call still fails retryably after its retries (429, 5xx, overloaded, network). */
  fallbacks: z.array(modelRuntimeSchema).max(5).default([]),
  budget: budget.optional(),
  sandbox: z.boolean().default(false),
  tools: toolPolicy.optional(),
  subagents: subagentSettings.optional(),
  swarm: swarmSettings.optional(),
  /** The model's context window in tokens: `contextTokens` of the agent's sessions (default in config/agents.ts). */
  contextWindow: z.number().int().positive().optional(),
  /** SPEC §23: this agent's retention, over `session.maintenance` (config/maintenance.ts). */
  maintenance: maintenanceSchema.optional(),
});

/** An agent whose `thinking` its runtime or a fallback cannot honour is a configuration error (SPEC §20). */
const agentSchema = agentFields.superRefine((agent, context) => {
  const level = agent.thinking;
  if (!level) return;
  const models = [agent.runtime, ...agent.fallbacks].filter(
    (runtime) => runtime.type !== "scripted" && runtime.type !== "webhook",
  );
  const refusing = models.find((runtime) => !honoursThinking(runtime.type, level));
  if (refusing)
    context.addIssue({
      code: "custom",
      path: ["thinking"],
      message: `thinking "${level}" cannot be honoured by the ${refusing.type} runtime (model ${"model" in refusing ? refusing.model : "?"}); use "off"`,
    });
});

/** SPEC §21: how a channel reaches its chats. `webhook` is §8's signed JSON; the others are connected directly. */
export const platforms = ["webhook", "telegram", "slack", "discord"] as const;
export type Platform = (typeof platforms)[number];

const channelSchema = z
  .strictObject({
    platform: z.enum(platforms).default("webhook"),
    /** Where replies, announces and updates for a `webhook` channel are POSTed (signed). */
    webhookUrl: z.url().optional(),
    /** The secret that signs both directions; default a key derived for this channel (auth/purpose-keys.ts). */
    secretEnv: secretName.optional(),
    /** The bot's API token (Telegram, Slack `xoxb-…`, Discord bot token). */
    botTokenEnv: secretName.optional(),
    /** Slack's signing secret (`X-Slack-Signature`). */
    signingSecretEnv: secretName.optional(),
    /** Telegram's `X-Telegram-Bot-Api-Secret-Token`; default a key derived for this channel. */
    secretTokenEnv: secretName.optional(),
    /** Discord's application public key (hex): not a secret, it verifies `X-Signature-Ed25519`. */
    publicKey: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "a Discord public key is 64 hex digits")
      .optional(),
    /** Discord's application id (its follow-up URLs and commands). */
    applicationId: z
      .string()
      .regex(/^[0-9]{1,20}$/, "a Discord application id is a number")
      .optional(),
    /** The platform's API root, for tests and proxies (default the platform's own). */
    apiBaseUrl: z.url().optional(),
    /** The agent an inbound message goes to when it names none; default the first configured agent. */
    agentId: agentId.optional(),
    /** In a group or channel chat, `mention` starts a run only when the bot is addressed (OpenClaw's requireMention). */
    groupActivation: z.enum(["mention", "always"]).default("mention"),
    /** Unaddressed group messages kept as context for the next addressed turn. */
    groupHistoryLimit: z.number().int().min(0).max(1000).default(50),
    /** Sender ids allowed to start anything; empty allows everyone. */
    allowFrom: z.array(z.string()).default([]),
    /** What a message does while the chat's session is busy (OpenClaw's queue modes). */
    busy: z.enum(["queue", "steer", "interrupt", "collect"]).default("queue"),
    /** `collect`: how long after the last message the batch is answered. */
    debounceMs: z.number().int().min(0).max(10_000).default(1500),
    /** `edit` shows the reply as it is written where the platform allows it; `off` posts the final reply. */
    streaming: z.enum(["edit", "off"]).optional(),
    /** Sender ids allowed to use `/send on|off|inherit` in groups (a direct chat's peer always may). */
    owners: z.array(z.string()).default([]),
  })
  .superRefine((channel, ctx) => {
    // What each platform cannot work without, named at its key (the secrets' values are checked at start).
    const required: Record<Platform, (keyof typeof channel)[]> = {
      webhook: [],
      telegram: ["botTokenEnv"],
      slack: ["botTokenEnv", "signingSecretEnv"],
      discord: ["botTokenEnv", "publicKey", "applicationId"],
    };
    for (const key of required[channel.platform]) {
      if (channel[key] === undefined)
        ctx.addIssue({ code: "custom", path: [key], message: `required for platform "${channel.platform}"` });
    }
    if (channel.platform !== "webhook" && channel.webhookUrl !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["webhookUrl"],
        message: `only for platform "webhook": a ${channel.platform} channel replies through its API`,
      });
  });

/** SPEC §22: the origins (scheme, host, port) outbound webhooks may be sent to, normalized; default none. */
const webhooksSettings = z.strictObject({
  allowedOrigins: z
    .array(
      z.string().transform((entry, ctx) => {
        const origin = configuredOrigin(entry);
        if (origin.ok) return origin.origin;
        ctx.addIssue({ code: "custom", message: `"${entry.slice(0, 100)}" ${origin.error}` });
        return z.NEVER;
      }),
    )
    .default([]),
});

/** A hook name: the `{name}` of `POST /v1/hooks/{name}`. */
const HOOK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** SPEC §22 hooks: `hooks.<name>`, a signed (or bearer) POST that starts a run of `agentId`. */
const hookSchema = z.strictObject({
  agentId,
  /** The hook's own secret: it signs (§8) or is the bearer token of its POSTs. */
  secretEnv: secretName,
  /** `isolated` (default: a fresh `agent:<id>:hook:<uuid>` per POST), `main`, or `session:<key>`. */
  sessionTarget: z
    .string()
    .regex(/^(?:isolated|main|session:.+)$/, 'must be "isolated", "main" or "session:<key>"')
    .default("isolated"),
  /** What the agent is told above the fenced body. */
  message: z.string().max(4000).optional(),
  delivery: z
    .discriminatedUnion("mode", [
      z.strictObject({ mode: z.literal("none") }),
      // Without channel and chat: as a cron job's (src/cron/announce-address.ts).
      z.strictObject({
        mode: z.literal("announce"),
        channel: z.string().min(1).optional(),
        to: z.string().min(1).optional(),
      }),
      z.strictObject({ mode: z.literal("webhook"), url: z.url() }),
    ])
    .default({ mode: "none" }),
});
export type HookConfig = z.infer<typeof hookSchema>;

const configFields = z.strictObject({
  session: z
    .strictObject({
      mainKey: z.string().trim().toLowerCase().min(1).default("main"),
      scope: z.enum(["per-sender", "global"]).default("per-sender"),
      agentToAgent: z.strictObject({ maxPingPongTurns }).prefault({}),
      sendPolicy: z
        .strictObject({
          default: z.enum(["allow", "deny"]).optional(),
          rules: z.array(sendPolicyRule).default([]),
        })
        .optional(),
      /** SPEC §23 retention defaults (config/maintenance.ts); the maintenance pass applies them. */
      maintenance: maintenanceSchema.optional(),
    })
    .prefault({}),
  tools: z
    .strictObject({
      profile: z.enum(toolProfiles).default("coding"),
      alsoAllow: z.array(z.string()).default([]),
      sessions: z.strictObject({ visibility }).prefault({}),
      agentToAgent: z
        .strictObject({ enabled: z.boolean().default(false), allow: z.array(z.string()).default([]) })
        .prefault({}),
      subagents: z
        .strictObject({
          tools: z
            .strictObject({
              allow: z.array(z.string()).optional(),
              alsoAllow: z.array(z.string()).optional(),
              deny: z.array(z.string()).optional(),
            })
            .prefault({}),
        })
        .prefault({}),
      sessions_spawn: z
        .strictObject({
          attachments: z
            .strictObject({
              enabled: z.boolean().default(false),
              maxFiles: z.number().int().min(1).default(50),
              maxFileBytes: z
                .number()
                .int()
                .min(1)
                .default(1024 * 1024),
              maxTotalBytes: z
                .number()
                .int()
                .min(1)
                .default(5 * 1024 * 1024),
              retainOnSessionKeep: z.boolean().default(false),
            })
            .prefault({}),
        })
        .prefault({}),
      swarm: swarmSettings.optional(),
    })
    .prefault({}),
  agents: z
    .strictObject({
      defaults: z
        .strictObject({
          sandbox: z
            .strictObject({ sessionToolsVisibility: z.enum(["spawned", "all"]).default("spawned") })
            .prefault({}),
          subagents: subagentSettings.prefault({}),
        })
        .prefault({}),
      list: z
        .array(agentSchema)
        .min(1)
        .prefault([{ id: "main" }])
        .superRefine((agents, ctx) => {
          const seen = new Set<string>();
          for (const [index, agent] of agents.entries()) {
            if (seen.has(agent.id))
              ctx.addIssue({
                code: "custom",
                path: [index, "id"],
                message: `duplicate agent id "${agent.id}"`,
              });
            seen.add(agent.id);
          }
        }),
    })
    .prefault({}),
  webhooks: webhooksSettings.prefault({}),
  hooks: z
    .record(z.string(), hookSchema)
    .superRefine((hooks, ctx) => {
      for (const name of Object.keys(hooks))
        if (!HOOK_NAME_PATTERN.test(name))
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: "hook name must match [a-z0-9][a-z0-9_-]{0,63}",
          });
    })
    .default({}),
  channels: z
    .record(z.string(), channelSchema)
    .superRefine((channels, ctx) => {
      // Checked here rather than as the record's key schema, whose failure would not say why.
      for (const name of Object.keys(channels)) {
        if (!CHANNEL_NAME_PATTERN.test(name))
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: `channel name must match ${CHANNEL_NAME_PATTERN.source.slice(1, -1)}`,
          });
      }
    })
    .default({}),
  cron: cronConfigSchema.prefault({}),
  index: indexSettings,
});

/** A hook names what the rest of the document must have: its agent, its channel, an allowed origin. */
function checkHooks(config: z.output<typeof configFields>, ctx: z.RefinementCtx): void {
  const agents = new Set(config.agents.list.map((agent) => agent.id));
  for (const [name, hook] of Object.entries(config.hooks)) {
    const at = (...path: string[]) => ["hooks", name, ...path];
    // A hook reaches its own agent's sessions only: a full key must be that agent's.
    const target = hook.sessionTarget.startsWith("session:")
      ? hook.sessionTarget.slice(8).trim().toLowerCase()
      : "";
    if (target.startsWith("agent:") && !target.startsWith(`agent:${hook.agentId}:`))
      ctx.addIssue({
        code: "custom",
        path: at("sessionTarget"),
        message: `must be a session of agent "${hook.agentId}"`,
      });
    if (!agents.has(hook.agentId))
      ctx.addIssue({ code: "custom", path: at("agentId"), message: `unknown agent "${hook.agentId}"` });
    if (
      hook.delivery.mode === "announce" &&
      hook.delivery.channel !== undefined &&
      !config.channels[hook.delivery.channel.toLowerCase()]
    )
      ctx.addIssue({ code: "custom", path: at("delivery", "channel"), message: "not a configured channel" });
    if (hook.delivery.mode === "webhook") {
      const allowed = allowedWebhook(hook.delivery.url, config);
      if (!allowed.ok) ctx.addIssue({ code: "custom", path: at("delivery", "url"), message: allowed.error });
    }
  }
}

/** Each configured job names a configured agent, once per id, at most 200 per agent (SPEC §22). */
function checkCronJobs(config: z.output<typeof configFields>, ctx: z.RefinementCtx): void {
  const agents = new Set(config.agents.list.map((agent) => agent.id));
  const seen = new Map<string, number>();
  for (const [index, job] of config.cron.jobs.entries()) {
    const path = ["cron", "jobs", index];
    if (!agents.has(job.agentId))
      ctx.addIssue({
        code: "custom",
        path: [...path, "agentId"],
        message: `unknown agent "${job.agentId}"`,
      });
    const perAgent = (seen.get(job.agentId) ?? 0) + 1;
    seen.set(job.agentId, perAgent);
    if (perAgent > MAX_JOBS_PER_AGENT)
      ctx.addIssue({
        code: "custom",
        path: [...path, "agentId"],
        message: `more than ${MAX_JOBS_PER_AGENT} jobs for agent "${job.agentId}"`,
      });
    if (
      config.cron.jobs.findIndex((other) => other.jobId === job.jobId && other.agentId === job.agentId) !==
      index
    )
      ctx.addIssue({
        code: "custom",
        path: [...path, "jobId"],
        message: `duplicate job id "${job.jobId}"`,
      });
  }
}

export const configSchema = configFields.superRefine((config, ctx) => {
  checkHooks(config, ctx);
  checkCronJobs(config, ctx);
  checkRouteByKey(config.index, new Set(config.agents.list.map((agent) => agent.id)), ctx);
});

export type SwitchboardConfig = z.infer<typeof configSchema>;
export type AgentConfig = SwitchboardConfig["agents"]["list"][number];
export type SendPolicyConfig = NonNullable<SwitchboardConfig["session"]["sendPolicy"]>;
export type SendPolicyRule = SendPolicyConfig["rules"][number];
export type SessionVisibility = SwitchboardConfig["tools"]["sessions"]["visibility"];
