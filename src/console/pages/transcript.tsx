import type { TranscriptMessage } from "../../transcript/message";
import { Empty, KeyText, sessionHref, When } from "../ui";

/** Who a message came from, as the badge names it (SPEC §5.2 provenance kinds). */
export function provenanceOf(message: TranscriptMessage): { kind: string; badge: string; source?: string } {
  const provenance = message.provenance;
  if (message.role === "assistant") return { kind: "assistant", badge: "assistant" };
  if (message.role === "toolResult" || message.role === "tool") return { kind: "tool", badge: "tool result" };
  if (message.role === "system" || provenance?.kind === "system") return { kind: "system", badge: "system" };
  switch (provenance?.kind) {
    case "inter_session":
      return { kind: "agent", badge: "agent", source: provenance.sourceSessionKey };
    case "subagent_task":
      return { kind: "subagent_task", badge: "sub-agent task", source: provenance.sourceSessionKey };
    case "subagent_completion":
      return { kind: "subagent_completion", badge: "sub-agent result", source: provenance.sourceSessionKey };
    default:
      return {
        kind: "user",
        badge: provenance?.sourceChannel ? `user · ${provenance.sourceChannel}` : "user",
      };
  }
}

/** A message's content as text blocks and tool calls; pictures and reasoning are named, not shown. */
function Content({ message }: { message: TranscriptMessage }) {
  if (typeof message.content === "string") return <p class="text">{message.content}</p>;
  return (
    <>
      {message.content.map((block) => {
        if (block.type === "text") return <p class="text">{block.text}</p>;
        if (block.type === "toolCall")
          return (
            <pre class="tool-call">{`${block.name}(${JSON.stringify(block.arguments ?? {}, null, 2)})`}</pre>
          );
        if (block.type === "image") return <p class="muted">[image]</p>;
        return <p class="muted">[reasoning]</p>;
      })}
    </>
  );
}

/** One message in the safe view, with its provenance badge and, for another session's, a link to it. */
function Message({ message, now }: { message: TranscriptMessage; now: number }) {
  const from = provenanceOf(message);
  return (
    <article
      class={`message from-${from.kind}`}
      id={`m-${message.id}`}
      data-role={message.role}
      data-provenance={from.kind}
    >
      <header>
        <span class={`badge badge-${from.kind}`}>{from.badge}</span>
        {from.source ? (
          <a href={sessionHref(from.source)} class="source">
            <KeyText value={from.source} />
          </a>
        ) : null}
        <When at={message.timestamp} now={now} />
        {message.model ? <span class="muted">{message.model}</span> : null}
      </header>
      <Content message={message} />
    </article>
  );
}

export interface SafeTranscriptProps {
  messages: TranscriptMessage[];
  /** Where older messages start, if there are more. */
  olderHref?: string | undefined;
  newestHref?: string | undefined;
  notes: string[];
}

/** A link to another page of the transcript, when there is one. */
function PageLink({ href, children }: { href: string | undefined; children: string }) {
  return href ? (
    <a class="page-link" href={href}>
      {children}
    </a>
  ) : null;
}

/** The safe view (what `sessions_history` shows): cleaned, redacted, capped; oldest first. */
export function SafeTranscript({ messages, olderHref, newestHref, notes }: SafeTranscriptProps) {
  const now = Date.now();
  // The newest page shows a streamed reply once it is in; an older page never will (console.js).
  return (
    <div class="transcript" data-newest={newestHref ? undefined : ""}>
      <PageLink href={olderHref}>Older messages</PageLink>
      {notes.map((note) => (
        <p class="notice">{note}</p>
      ))}
      {messages.length === 0 ? <Empty>No messages yet.</Empty> : null}
      {messages.map((message) => (
        <Message message={message} now={now} />
      ))}
      <PageLink href={newestHref}>Newest messages</PageLink>
    </div>
  );
}

/** The exact view (operator only): each stored message as it is, in transcript order, newest page first. */
export function ExactTranscript(props: {
  lines: string[];
  olderHref?: string | undefined;
  newestHref?: string | undefined;
}) {
  const { lines, olderHref, newestHref } = props;
  return (
    <div class="transcript exact">
      <PageLink href={olderHref}>Older messages</PageLink>
      {lines.length === 0 ? <Empty>No messages.</Empty> : null}
      {lines.map((line) => {
        const message = JSON.parse(line) as { id?: string; role?: string };
        return (
          <article class="message exact" data-role={message.role ?? ""} id={`m-${message.id ?? ""}`}>
            <pre>{JSON.stringify(message, null, 2)}</pre>
          </article>
        );
      })}
      <PageLink href={newestHref}>Newest messages</PageLink>
    </div>
  );
}
