import type { SessionRow } from "../../session/api";
import type { ConsoleViewer } from "../access";
import { viewerMay } from "../access";
import {
  Cost,
  KeyText,
  Region,
  Status,
  sessionFragment,
  sessionHref,
  sessionTitle,
  Tokens,
  When,
} from "../ui";
import { SessionActions } from "./session-actions";

export interface SessionPageProps {
  viewer: ConsoleViewer;
  /** Canonical key (URLs); the row's `key` is the display key. */
  sessionKey: string;
  row: SessionRow;
  models: string[];
  /** The transcript region's query (view, offset, after), passed through from the page's URL. */
  transcriptQuery: string;
  exact: boolean;
}

function Facts({ row }: { row: SessionRow }) {
  const facts: [string, unknown][] = [
    ["Agent", row.agentId],
    ["Kind", row.kind],
    ["Channel", row.channel],
    ["Status", <Status value={row.status ?? "idle"} />],
    ["Model", row.model],
    ["Tokens", <Tokens count={row.totalTokens} />],
    ["Cost", <Cost usd={row.estimatedCostUsd} />],
    ["Compactions", row.compactionCount ?? 0],
    ["Last activity", <When at={row.updatedAt} />],
    ["Created", <When at={row.createdAt} />],
    ["Send policy", row.sendPolicy ?? "inherit"],
  ];
  if (row.parentSessionKey)
    facts.push([
      "Parent",
      <a href={sessionHref(row.parentSessionKey)}>
        <KeyText value={row.parentSessionKey} />
      </a>,
    ]);
  return (
    <dl class="facts">
      {facts.map(([name, value]) => (
        <div>
          <dt>{name}</dt>
          <dd>{value ?? "–"}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The session page: what the viewer may see of it, with the regions the client loads and keeps live. */
export function SessionPage(props: SessionPageProps) {
  const { viewer, sessionKey, row } = props;
  const operator = viewer.kind === "operator";
  const live = viewerMay(viewer, sessionKey, "events");
  const send = viewerMay(viewer, sessionKey, "send");
  const events = `/v1/sessions/${encodeURIComponent(sessionKey)}/events${operator ? "?tree=1" : ""}`;
  const transcript = `${sessionFragment(sessionKey, "/transcript")}${props.transcriptQuery}`;
  return (
    <div class="session">
      <header class="session-head">
        <h1>
          <KeyText value={row.key} />
        </h1>
        {sessionTitle(row) ? <p class="subtitle">{sessionTitle(row)}</p> : null}
        {row.archived ? <p class="notice">Archived: hidden from lists until restored.</p> : null}
        <Facts row={row} />
        {live ? (
          <p class="live" data-live={events} data-live-root={sessionKey}>
            <span data-live-status>Connecting…</span>
          </p>
        ) : null}
      </header>
      <div class="columns">
        <div class="conversation">
          <Region id="transcript" title="Transcript" src={transcript} refresh="transcript" log>
            {operator ? (
              <p class="toggle">
                <a href={sessionHref(sessionKey)} aria-current={props.exact ? undefined : "page"}>
                  Safe view
                </a>
                <a
                  href={`${sessionHref(sessionKey)}?view=exact`}
                  aria-current={props.exact ? "page" : undefined}
                >
                  Exact view
                </a>
              </p>
            ) : null}
          </Region>
          <div class="live-reply message from-assistant" data-live-reply hidden aria-live="polite">
            <header>
              <span class="badge badge-assistant">assistant</span>
              <span data-reply-state class="muted" />
            </header>
            <p class="text" data-reply-text />
          </div>
          {send ? (
            <form
              id="send"
              data-api={`/v1/sessions/${encodeURIComponent(sessionKey)}/messages`}
              data-reset
              data-success="Reply received."
              {...(live ? { "data-stream": "" } : {})}
            >
              <label for="send-text">Message (chat.send)</label>
              <textarea id="send-text" name="text" required rows={2} />
              <button type="submit">Send</button>
            </form>
          ) : null}
        </div>
        {operator ? (
          <div class="side">
            <Region id="runs" title="Runs" src={sessionFragment(sessionKey, "/runs")} refresh="runs" />
            <Region id="tree" title="Sub-agents" src={sessionFragment(sessionKey, "/tree")} refresh="tree" />
            <Region
              id="activity"
              title="Watchers and events"
              src={sessionFragment(sessionKey, "/activity")}
              refresh="activity"
            />
            <Region
              id="session-deliveries"
              title="Deliveries"
              src={sessionFragment(sessionKey, "/deliveries")}
              refresh="deliveries"
            />
            <SessionActions sessionKey={sessionKey} row={row} models={props.models} />
          </div>
        ) : null}
      </div>
    </div>
  );
}
