import { sseFrame } from "./frames";

/**
 * Why a stream's credential stopped holding: taken back (or its session gone), past its time, or the
 * check itself failed (the stream closes rather than go on unchecked; the reader reconnects).
 */
export type CredentialLapse = "revoked" | "expired" | "unverified";

/** An open stream asks again at least this often whether its credential holds, events or not. */
export const RECHECK_MS = 10_000;

export interface StreamGuard {
  /** Undefined while the credential holds; else why it does not. */
  check: () => Promise<CredentialLapse | undefined>;
  /** When the credential expires by itself (ms): the stream ends then without waiting for a check. */
  expiresAt?: number;
}

const KEEP_ALIVE_ONLY = /^(?::[^\n]*\n\n)+$/;

/**
 * The stream `upstream` answers, ended once its credential no longer holds (a grant revoked or
 * expired, its session deleted, a run token's run over): asked again before every chunk that carries
 * events and every RECHECK_MS, and at the credential's own expiry. The reader is told why in a last
 * `close` frame (with the last event id it received, to resume from should it get a new credential).
 */
export function guardStream(upstream: Response, guard: StreamGuard): Response {
  const source = upstream.body;
  if (!source) return upstream;
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const timers: ReturnType<typeof setTimeout>[] = [];
  let lastEventId: string | undefined;
  let partialLine = "";
  let ended = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;

  const stop = () => {
    ended = true;
    for (const timer of timers) clearTimeout(timer);
  };
  const end = (lapse: CredentialLapse) => {
    if (ended) return;
    stop();
    reader.cancel(`credential ${lapse}`).catch(() => {});
    try {
      controller?.enqueue(sseFrame("close", { reason: lapse, lastEventId: lastEventId ?? null }));
      controller?.close();
    } catch {
      // The reader went away first.
    }
  };
  const recheck = async () => {
    const lapse = await guard.check().catch((): CredentialLapse => "unverified");
    if (lapse) end(lapse);
    return lapse;
  };
  /** Remembers the last `id:` line forwarded, across chunks that split a line. */
  const track = (text: string) => {
    const lines = (partialLine + text).split("\n");
    partialLine = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("id: ")) lastEventId = line.slice(4);
  };

  const body = new ReadableStream<Uint8Array>({
    start(opened) {
      controller = opened;
      timers.push(setInterval(() => void recheck(), RECHECK_MS));
      if (guard.expiresAt !== undefined)
        timers.push(setTimeout(() => end("expired"), Math.max(0, guard.expiresAt - Date.now())));
    },
    async pull(opened) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (ended) return;
      if (done || !value) {
        stop();
        opened.close();
        return;
      }
      const text = decoder.decode(value, { stream: true });
      // Keep-alive comments carry nothing: only chunks with events wait for a fresh check.
      if (!KEEP_ALIVE_ONLY.test(text) && (await recheck())) return;
      if (ended) return;
      track(text);
      opened.enqueue(value);
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: upstream.status, headers: upstream.headers });
}
