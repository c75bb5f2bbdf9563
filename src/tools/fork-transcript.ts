import type { TranscriptMessage } from "../transcript/message";
import type { ToolContext } from "./types";

const CHUNK = 500;

/** Copies the requester's transcript into a new child (sessions_spawn `context: "fork"`). */
export async function forkTranscript(ctx: ToolContext, fromKey: string, toKey: string): Promise<void> {
  const from = ctx.session(fromKey);
  const to = ctx.session(toKey);
  for (let afterSeq = 0; ; ) {
    const chunk = await from.exportChunk(afterSeq, CHUNK);
    if (!chunk.ok || chunk.value.lines.length === 0) return;
    await to.importMessages(chunk.value.lines.map((line) => JSON.parse(line) as TranscriptMessage));
    if (chunk.value.lines.length < CHUNK) return;
    afterSeq = chunk.value.lastSeq;
  }
}
