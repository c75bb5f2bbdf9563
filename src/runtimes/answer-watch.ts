/** What the wire showed of one model call, read under the provider package (model-errors.ts quotes it). */
export interface AnswerWatch {
  /** The HTTP status of the answer, once one came (a Workers AI binding's stream counts as 200). */
  status?: number;
  /** The first bytes of the answer's body, as text. */
  head: string;
  /** Why reading the body failed, when the transport broke off mid-answer. */
  brokeOff?: unknown;
}

const HEAD_CHARS = 2000;

/** A fresh watch for the next call. */
export const newWatch = (): AnswerWatch => ({ head: "" });

/**
 * `body`, passed through unchanged, its first characters kept in `watch.head` and a failed read noted in
 * `watch.brokeOff` (so a broken connection is told apart from an answer the provider package could not read).
 */
export function watchBody(body: ReadableStream<Uint8Array>, watch: AnswerWatch): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (cause) {
        watch.brokeOff = cause;
        controller.error(cause);
        return;
      }
      if (next.done) return controller.close();
      if (watch.head.length < HEAD_CHARS) watch.head += decoder.decode(next.value, { stream: true });
      controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** A `fetch` for a provider package that records each answer in the watch `current()` returns. */
export function watchedFetch(current: () => AnswerWatch): typeof fetch {
  return async (request, init) => {
    const response = await fetch(request, init);
    const watch = current();
    watch.status = response.status;
    if (!response.body) return response;
    return new Response(watchBody(response.body, watch), response);
  };
}

/**
 * Whether a complete `data:` line of an event stream the watch saw is neither JSON nor `[DONE]`: an
 * answer in no format a model API speaks (a proxy's HTML page, a truncated body).
 */
export function sawGarbageEvents(watch: AnswerWatch): boolean {
  const complete = watch.head.slice(0, watch.head.lastIndexOf("\n") + 1);
  for (const line of complete.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]" || data === "") continue;
    try {
      JSON.parse(data);
    } catch {
      return true;
    }
  }
  return false;
}
