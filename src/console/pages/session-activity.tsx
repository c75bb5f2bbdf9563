import { displayKey, type KeyOptions } from "../../keys";
import type { SessionEvent, SessionInspection } from "../../session/api";
import { clip, Empty, KeyText, sessionHref, When } from "../ui";
import { Older } from "./older";

// One line per event: enough to tell events apart; the API (`changesSince`) has each in full.
const MAX_LINE_CHARS = 200;
/** Events shown at once; the older ones the inspection holds wait folded below them. */
export const EVENTS_SHOWN = 8;

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

function EventList({ events, keyOptions }: { events: SessionEvent[]; keyOptions: KeyOptions }) {
  return (
    <ol class="events">
      {events.map((event) => (
        <li data-seq={event.seq} data-kind={event.kind}>
          <span class="seq">#{event.seq}</span> <span class="kind">{event.kind}</span>{" "}
          <When at={event.occurredAt} /> <span class="summary">{eventLine(event, keyOptions)}</span>
        </li>
      ))}
    </ol>
  );
}

/** Who watches the session, and its latest events, newest first (the newest few, the rest folded). */
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
                <a href={sessionHref(watcher.watcherKey)}>
                  <KeyText value={displayKey(watcher.watcherKey, keyOptions)} />
                </a>
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
          <>
            <EventList events={events.slice(0, EVENTS_SHOWN)} keyOptions={keyOptions} />
            {events.length > EVENTS_SHOWN ? (
              <Older id="events-older" count={events.length - EVENTS_SHOWN} what="older events">
                <EventList events={events.slice(EVENTS_SHOWN)} keyOptions={keyOptions} />
              </Older>
            ) : null}
          </>
        )}
      </section>
    </>
  );
}
