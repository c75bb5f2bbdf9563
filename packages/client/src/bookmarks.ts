/** The header Switchboard's D1 bookmarks travel in, both ways (README "Read replicas"). */
export const BOOKMARK_HEADER = "Switchboard-Bookmark";

/**
 * Where this client's next reads of the index must start, per shard: the newest bookmark each answer
 * carried, sent back with every call, so a client reads at least what it saw and what it wrote even when
 * its requests land on different read replicas. Opaque values; clients made with `with()` share it.
 */
export class Bookmarks {
  readonly #byShard = new Map<string, string>();

  /** The value to send, or undefined before any answer carried one. */
  get header(): string | undefined {
    if (this.#byShard.size === 0) return undefined;
    return [...this.#byShard].map(([shard, bookmark]) => `${shard}=${bookmark}`).join(", ");
  }

  /** Takes an answer's header: each shard it names replaces what was held; the others stay. */
  update(header: string | null): void {
    for (const entry of header?.split(",") ?? []) {
      const at = entry.indexOf("=");
      if (at > 0) this.#byShard.set(entry.slice(0, at).trim(), entry.slice(at + 1).trim());
    }
  }
}
