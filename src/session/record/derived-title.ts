const TITLE_MAX_CHARS = 60;
const PREVIEW_MAX_CHARS = 200;

/** Collapses whitespace and cuts to `max` chars at the last space past 60% of it, then adds `…`. */
export function shortenText(text: string, max: number): string {
  const collapsed = text.replace(/\s+/g, " ").trim();
  if (collapsed.length <= max) return collapsed;
  const cut = collapsed.slice(0, max);
  const lastSpace = cut.lastIndexOf(" ");
  return `${lastSpace > max * 0.6 ? cut.slice(0, lastSpace) : cut}…`;
}

/** SPEC §5.1 derivedTitle: display name, subject, first user message, else sessionId prefix and date. */
export function deriveTitle(session: {
  displayName?: string;
  subject?: string;
  firstUserText?: string;
  sessionId: string;
  createdAt: number;
}): string {
  if (session.displayName) return session.displayName;
  if (session.subject) return session.subject;
  const fromMessage = session.firstUserText ? shortenText(session.firstUserText, TITLE_MAX_CHARS) : "";
  if (fromMessage) return fromMessage;
  return `${session.sessionId.slice(0, 8)} (${new Date(session.createdAt).toISOString().slice(0, 10)})`;
}

/** The preview kept for a message: collapsed and cut like a title, but longer. */
export function previewText(text: string): string {
  return shortenText(text, PREVIEW_MAX_CHARS);
}
