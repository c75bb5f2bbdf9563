import type { Child } from "hono/jsx";
import type { SessionRow } from "../session/api";
import { formatAgo, formatRuntime, formatTokenCount, formatUsd } from "../text/units";

/** The console's link to a session's page (canonical key, so it names exactly one session). */
export const sessionHref = (sessionKey: string) => `/console/sessions/${encodeURIComponent(sessionKey)}`;

/** A session's fragments live under the same path as its page. */
export const sessionFragment = (sessionKey: string, part = "") =>
  `/console/fragments/sessions/${encodeURIComponent(sessionKey)}${part}`;

/** A session's name beyond its key: label, display name, or the title derived from its first message. */
export const sessionTitle = (row: SessionRow) => row.label ?? row.displayName ?? row.derivedTitle ?? "";

/** A text cut to `max` characters, with `…` when cut: the page's short form, the API has it whole. */
export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** A moment, in words ("3 min ago"), with the exact time on hover and for machines. */
export function When({ at, now = Date.now() }: { at: number | null | undefined; now?: number }) {
  if (at === null || at === undefined) return <span class="muted">never</span>;
  const iso = new Date(at).toISOString();
  return (
    <time datetime={iso} title={iso}>
      {formatAgo(Math.max(0, now - at))}
    </time>
  );
}

/** How long something took, as the status card writes it (`42s`, `3m5s`). */
export function Took({ from, to }: { from: number | null | undefined; to: number | null | undefined }) {
  if (!from) return <span class="muted">–</span>;
  return <span>{formatRuntime((to ?? Date.now()) - from)}</span>;
}

/** A token count as people read it (`12.3k`). */
export function Tokens({ count }: { count: number | null | undefined }) {
  return count === null || count === undefined ? (
    <span class="muted">–</span>
  ) : (
    <span title={String(count)}>{formatTokenCount(count)}</span>
  );
}

/** An estimated cost (SPEC §20), or a dash where it is unknown (no pricing): never a made-up $0. */
export function Cost({ usd }: { usd: number | undefined }) {
  return usd === undefined ? (
    <span class="muted">–</span>
  ) : (
    <span title={`${usd} USD`}>{formatUsd(usd)}</span>
  );
}

/** A status word, styled by its value (`status-running`, `status-suspended`, …). */
export function Status({ value }: { value: string | null | undefined }) {
  const word = value ?? "unknown";
  return <span class={`status status-${word.replace(/[^a-z_]/gi, "")}`}>{word}</span>;
}

/**
 * A labelled region the client loads (and, with `refresh`, reloads as live events arrive). A `log`
 * region scrolls within itself and keeps its end in view (console.js), as a chat does: however long
 * what it holds, what comes after it (the send box) stays where a person expects it.
 */
export function Region(props: {
  id: string;
  title: string;
  src: string;
  refresh?: string;
  log?: boolean;
  children?: Child;
}) {
  // Browsers let the keyboard scroll a scrolling box by itself (Chromium and Firefox focus it).
  const log = props.log ? { class: "log", "data-stick": "end" } : {};
  return (
    <section class="region" id={props.id} aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      {props.children}
      <div data-src={props.src} data-refresh={props.refresh} {...log}>
        <p class="muted">Loading…</p>
      </div>
    </section>
  );
}

/**
 * A session key that wraps only between its parts (`agent:` `main:` `discord:` …) and at a UUID's hyphens,
 * never inside a word; copied, it is the key as it is (`<wbr>` adds no character).
 */
export function KeyText({ value }: { value: string }) {
  const parts = value.split(/(?<=:)/);
  return <>{parts.map((part, index) => (index === 0 ? part : [<wbr />, part]))}</>;
}

/** What an empty list says. */
export const Empty = ({ children }: { children: Child }) => <p class="empty muted">{children}</p>;
