import type { KeyPurpose } from "../auth/purpose-keys";
import type { AgentConfig } from "../config/schema";
import type { TranscriptMessage } from "../transcript/message";

/** A run's tokens, summed over its model calls. */
export interface RunUsage {
  /** Uncached input tokens (as Anthropic reports them; OpenClaw's `input`). */
  input: number;
  output: number;
  total: number;
  /** Input tokens read from / written to the provider's prompt cache, where it reports them. */
  cacheRead?: number;
  cacheWrite?: number;
  /** USD by the answering runtime's `pricing` (runtimes/pricing.ts), set by the executor; unknown without. */
  estimatedCostUsd?: number;
  /**
   * What the run's last model call had in context (its prompt plus its completion): the session's
   * `totalTokens`, as OpenClaw means it. Left out by runtimes that see one call, where it is `total`.
   */
  lastCallTokens?: number;
}

/** A tool as a model sees it: JSON schema generated from the tool's zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A file given to sessions_spawn, as the child's runtime sees it. */
export interface AttachmentRef {
  name: string;
  mimeType?: string;
  size: number;
  sha256: string;
  /** Where the file can be fetched with the run token: `GET <service>/v1/sessions/{key}/attachments/{name}`. */
  path: string;
  /** The file itself, for small UTF-8 files (the openai runtime puts these in the prompt). */
  text?: string;
}

/** Everything a runtime gets for one turn. */
export interface RunInput {
  runId: string;
  agent: AgentConfig;
  sessionKey: string;
  sessionId: string;
  /** The message that started the run. */
  message: TranscriptMessage;
  /** Earlier messages of the session, oldest first. */
  history: TranscriptMessage[];
  /**
   * The run's whole system prompt (SPEC §20): the agent's instructions first, then the run context block
   * Switchboard writes (src/prompt/system-prompt.ts). A model runtime sends it as the system prompt.
   */
  system: string;
  /** Context of our own for this turn: agent-to-agent roles, reply-step or announce instructions. */
  context?: string;
  /** Files the session was spawned with. */
  attachments: AttachmentRef[];
  /** Exactly the tools this run may call. */
  tools: ToolSpec[];
  /** Lets an external runtime call `/tools/invoke` as this run. */
  runToken: string;
  signal: AbortSignal;
  /**
   * The messages steered into this run since the runtime last asked (sessions_send mode=steer), oldest
   * first; already in the transcript. A runtime takes them before its next step.
   */
  takeSteering: () => TranscriptMessage[];
  /**
   * Hands reply text to the run's live stream as the runtime produces it (SPEC §14 `delta`). Only for
   * watchers: the final reply is still the outcome's `text`.
   */
  onDelta: (text: string) => void;
  /** Executes a tool call as the run's session. */
  callTool: (name: string, args: unknown) => Promise<object>;
  /** Reads a secret by name (API keys, a webhook agent's own `secretEnv`). */
  secret: (name: string) => string | undefined;
  /** The key derived for one purpose from the signing key (a webhook agent without `secretEnv`). */
  purposeKey: (purpose: KeyPurpose) => Promise<string | undefined>;
}

/** How a turn ended, as far as the runtime knows. */
export type RunOutcome =
  | {
      kind: "done";
      text: string;
      usage?: RunUsage;
      messages: TranscriptMessage[];
      /** The model and provider that answered (a fallback's when one did), set by the run executor. */
      model?: string;
      provider?: string;
    }
  | { kind: "deferred" }
  | { kind: "failed"; error: string; retryable: boolean };

export type AgentRuntime = (input: RunInput) => Promise<RunOutcome>;
