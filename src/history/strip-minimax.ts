import { removeMatchesOutsideCode, stripTagBlocks } from "./strip-tag-blocks";

const MINIMAX_TAG = /<\s*\/?\s*minimax:tool_call\s*>/gi;

/**
 * In text that carries MiniMax's `minimax:tool_call` wrapper, removes its `<invoke …>…</invoke>` blocks
 * and the wrapper tags. Other text keeps its `<invoke>`: without the wrapper it may just be prose.
 */
export function stripMinimaxToolCalls(text: string): string {
  if (!/minimax:tool_call/i.test(text)) return text;
  return removeMatchesOutsideCode(stripTagBlocks(text, "invoke"), new RegExp(MINIMAX_TAG.source, "gi"));
}
