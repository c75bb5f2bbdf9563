import type { TranscriptMessage } from "../transcript/message";
import type { ToolContext } from "./types";

const CHUNK = 500;

/** A session's whole transcript as stored, oldest first (sessions_spawn `context: "fork"`). */
export async function readTranscript(ctx: ToolContext, sessionKey: string): Promise<TranscriptMessage[]> {
  const from = ctx.session(sessionKey);
  const messages: TranscriptMessage[] = [];
  for (let afterSeq = 0; ; ) {
    const chunk = await from.exportChunk(afterSeq, CHUNK);
    if (!chunk.ok || chunk.value.lines.length === 0) return messages;
    for (const line of chunk.value.lines) messages.push(JSON.parse(line) as TranscriptMessage);
    if (chunk.value.lines.length < CHUNK) return messages;
    afterSeq = chunk.value.lastSeq;
  }
}
