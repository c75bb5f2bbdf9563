import { displayKey, type KeyOptions } from "../../keys";
import type { SessionEvent, SessionInspection } from "../../session/api";
import { clip, Empty, sessionHref, When } from "../ui";

// One line per event: enough to tell events apart; the API (`changesSince`) has each in full.
const MAX_LINE_CHARS = 200;

/** A data value as a few words: a provenance by its kind, other objects as compact JSON. */
function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && "kind" in value && typeof value.kind === "string")
    return value.kind;
  return JSON.stringify(value) ?? String(value);
}

/** What an event says on one line: its summary, who caused it, its run, then its data. */
export function eventLine(event: SessionEvent, keyOptions: KeyOptions): string {
  const actor =
    event.actor.type === "human"
      ? "by a person"
      : event.actor.type === "agent"
        ? `by ${event.actor.id ? displayKey(event.actor.id, keyOptions) : "another session"}`
        : undefined;
  const data = Object.entries(event.data ?? {}).map(([name, value]) => `${name}=${valueText(value)}`);
  const parts = [event.summary, actor, event.runId ? `run ${event.runId.slice(0, 8)}` : undefined, ...data];
  const line = parts
    .filter((part) => part !== undefined)
    .join(" · ")
    .replace(/\s+/g, " ");
  return clip(line, MAX_LINE_CHARS);
}

/** Who watches the session, and its latest events, newest first. */
export function SessionActivity({
  inspection,
  keyOptions,
}: {
  inspection: SessionInspection;
  keyOptions: KeyOptions;
}) {
  const { watchers, events, stateVersion } = inspection;
  return (
    <>
      <section id="watchers" aria-labelledby="watchers-title">
        <h3 id="watchers-title">Watchers</h3>
        {watchers.length === 0 ? (
          <Empty>No session watches this one.</Empty>
        ) : (
          <ul class="watchers">
            {watchers.map((watcher) => (
              <li data-watcher={watcher.watcherKey}>
                <a href={sessionHref(watcher.watcherKey)}>{displayKey(watcher.watcherKey, keyOptions)}</a>
                {` read up to #${watcher.lastSeen} of #${stateVersion}, watching since `}
                <When at={watcher.since} />
                {watcher.noticePending ? <span class="badge"> notice pending</span> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section id="events" aria-labelledby="events-title">
        <h3 id="events-title">Event log</h3>
        {events.length === 0 ? (
          <Empty>No events kept.</Empty>
        ) : (
          <ol class="events">
            {events.map((event) => (
              <li data-seq={event.seq} data-kind={event.kind}>
                <span class="seq">#{event.seq}</span> <span class="kind">{event.kind}</span>{" "}
                <When at={event.occurredAt} /> <span class="summary">{eventLine(event, keyOptions)}</span>
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
