import { stripControlTokens } from "./strip-control-tokens";
import { stripMinimaxToolCalls } from "./strip-minimax";
import { stripDowngradedScaffolding } from "./strip-scaffolding";
import { stripTagBlocks } from "./strip-tag-blocks";
import { stripToolPayloadBlocks } from "./strip-tool-payloads";

const REASONING_TAG_NAMES = "think|thinking|thought|antthinking";
const RELEVANT_MEMORIES_TAG_NAMES = "relevant[-_]memories";

// Order follows SPEC §5.2 step 1. Each step finds code spans afresh, because earlier steps move text.
const cleanupSteps: ReadonlyArray<(text: string) => string> = [
  (text) => stripTagBlocks(text, REASONING_TAG_NAMES),
  (text) => stripTagBlocks(text, RELEVANT_MEMORIES_TAG_NAMES),
  stripToolPayloadBlocks,
  stripDowngradedScaffolding,
  stripControlTokens,
  stripMinimaxToolCalls,
];

/**
 * Removes what an assistant's text must not show another session: reasoning, injected memories, tool-call
 * payloads, downgraded tool scaffolding, control tokens and MiniMax tool XML (SPEC §5.2 step 1). Code
 * spans are left alone, and the result is not trimmed.
 */
export function cleanAssistantText(text: string): string {
  return cleanupSteps.reduce((current, step) => step(current), text);
}
