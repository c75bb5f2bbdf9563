import type { ChannelDeliveryError } from "../../index-db/channel-deliveries";
import type { ChannelSettings } from "../../platforms/platform";
import type { ChannelStatus } from "../../platforms/status";
import { type Column, DataTable } from "../data-table";
import { clip, Empty, KeyText, Status, sessionHref, When } from "../ui";

/** One configured channel as the list shows it: its settings beside what D1 knows of it. */
export interface ChannelLine {
  name: string;
  settings: ChannelSettings;
  /** The agent a message goes to when it names none (the first configured agent by default). */
  agentId: string;
  bot?: { id: string; username?: string } | undefined;
  lastInboundAt?: number | undefined;
  lastOutcome?: string | undefined;
  /** Posts to the channel that wait on the operator (failed, suspended). */
  stuck: number;
  lastDeliveryError?: ChannelDeliveryError | undefined;
}

export const channelHref = (name: string) => `/console/channels/${encodeURIComponent(name)}`;

/** What a message does while its chat is busy, with the debounce where it counts. */
const busyText = (settings: ChannelSettings) =>
  settings.busy === "collect" ? `collect (${settings.debounceMs} ms)` : settings.busy;

/** How a reply appears: the channel's `streaming`, else the platform's default (SPEC §21 Live). */
const streamingText = (settings: ChannelSettings) =>
  settings.platform === "webhook" ? "–" : (settings.streaming ?? "platform default");

/** The bot as the platform said it is (cached in D1), or why there is none to show. */
function Bot({ line }: { line: Pick<ChannelLine, "bot" | "settings"> }) {
  if (line.settings.platform === "webhook") return <span class="muted">–</span>;
  if (line.settings.platform === "discord" && !line.bot)
    return <span>app {line.settings.applicationId ?? "?"}</span>;
  if (!line.bot) return <span class="muted">not read yet</span>;
  return <span title={line.bot.id}>{line.bot.username ? `@${line.bot.username}` : line.bot.id}</span>;
}

/** The newest failed post's error, when, and where it went. */
function DeliveryError({ error }: { error: ChannelDeliveryError | undefined }) {
  if (!error) return <span class="muted">none</span>;
  return (
    <span>
      <Status value={error.status} /> {clip(error.lastError, 160)} (<When at={error.updatedAt} />)
    </span>
  );
}

const columns: Column<ChannelLine>[] = [
  { name: "Channel", head: true, cell: (line) => <a href={channelHref(line.name)}>{line.name}</a> },
  { name: "Platform", cell: (line) => line.settings.platform },
  { name: "Agent", cell: (line) => line.agentId },
  { name: "Bot", cell: (line) => <Bot line={line} /> },
  {
    name: "Last inbound",
    cell: (line) => (
      <>
        <When at={line.lastInboundAt} />
        {line.lastOutcome ? ` (${line.lastOutcome})` : null}
      </>
    ),
  },
  { name: "Busy", cell: (line) => busyText(line.settings) },
  { name: "Streaming", cell: (line) => streamingText(line.settings) },
  { name: "Groups", cell: (line) => line.settings.groupActivation },
  { name: "Failed posts", cell: (line) => String(line.stuck) },
  {
    name: "Last delivery error",
    wide: true,
    class: "last-error",
    cell: (line) => <DeliveryError error={line.lastDeliveryError} />,
  },
];

/** The channels page: every configured channel, its settings and its state (SPEC §21 "the console"). */
export function ChannelsView({ lines }: { lines: ChannelLine[] }) {
  return (
    <div class="channels-page">
      <h1>Channels</h1>
      {lines.length === 0 ? (
        <Empty>No channel is configured (channels in the configuration).</Empty>
      ) : (
        <DataTable
          class="channels"
          columns={columns}
          rows={lines}
          rowAttrs={(line) => ({ "data-channel": line.name })}
          caption="Configured channels"
        />
      )}
    </div>
  );
}

/** A list of named values, as a session page's facts. */
export function Facts({ facts }: { facts: [string, unknown][] }) {
  return (
    <dl class="facts">
      {facts.map(([name, value]) => (
        <div>
          <dt>{name}</dt>
          <dd>{value === undefined || value === "" ? "–" : value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A platform's field as text: its own names and values, arrays joined, a Unix time as a moment. */
function viewValue(key: string, value: unknown) {
  if (key.endsWith("_date") && typeof value === "number") return <When at={value * 1000} />;
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.join(", ");
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** One channel's page: its settings, our state of it and the platform's view (`channels status`). */
export function ChannelView(props: { line: ChannelLine; status: ChannelStatus }) {
  const { line, status } = props;
  const { settings } = line;
  const ours = status.ours;
  const error = ours.lastDeliveryError;
  const view = Object.entries(status.platformView ?? {});
  return (
    <div class="channel-page">
      <h1>Channel {line.name}</h1>
      <Facts
        facts={[
          ["Platform", settings.platform],
          ["Agent", line.agentId],
          ["Bot", <Bot line={line} />],
          ["Busy", busyText(settings)],
          ["Streaming", streamingText(settings)],
          ["Groups", settings.groupActivation],
          ["Group history", settings.groupHistoryLimit],
          ["Allowed senders", settings.allowFrom.length === 0 ? "everyone" : settings.allowFrom.length],
        ]}
      />
      <p>
        The platform posts to <code>{`/v1/channels/${line.name}/messages`}</code> on this service.
      </p>
      <section class="region" id="ours" aria-labelledby="ours-title">
        <h2 id="ours-title">Ours</h2>
        <Facts
          facts={[
            ["Last inbound", <When at={ours.lastInboundAt} />],
            ["Its outcome", ours.lastInboundOutcome],
            ["Ignored", ours.ignoredCount],
            ["Last ignored", ours.lastIgnoredReason],
            ["Failed posts", line.stuck],
          ]}
        />
        <h3>Last delivery error</h3>
        {error ? (
          <p class="last-error">
            <DeliveryError error={error} /> to <code>{error.target}</code> from{" "}
            <a href={sessionHref(error.sessionKey)}>
              <KeyText value={error.sessionKey} />
            </a>{" "}
            (delivery <code>{error.deliveryId}</code>)
          </p>
        ) : (
          <Empty>No post to this channel has failed.</Empty>
        )}
      </section>
      <section class="region" id="platform-view" aria-labelledby="platform-view-title">
        <h2 id="platform-view-title">The platform's view</h2>
        {settings.platform === "webhook" ? (
          <Empty>A webhook channel's bridge is yours: there is no platform to ask.</Empty>
        ) : view.length === 0 ? (
          <Empty>The platform said nothing.</Empty>
        ) : (
          <dl class="kv">
            {view.map(([key, value]) => (
              <>
                <dt>{key}</dt>
                <dd>{viewValue(key, value)}</dd>
              </>
            ))}
          </dl>
        )}
      </section>
    </div>
  );
}
