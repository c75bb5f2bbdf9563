import type { MaintenanceReport } from "../../maintenance/report";
import type { AgentMaintenance } from "../../maintenance/run-maintenance";
import { type Column, DataTable } from "../data-table";
import { Empty, KeyText, sessionHref } from "../ui";
import { Facts } from "./channels";

/** A size as a person writes it: `812 B`, `14.2 KB`, `3.4 MB` (decimal units, as D1's limits are). */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

const count = (value: number) => value.toLocaleString("en-US");
const idle = (n: number) => `${count(n)} idle session${n === 1 ? "" : "s"}`;

type Largest = AgentMaintenance["largest"][number];
const largestColumns: Column<Largest>[] = [
  {
    name: "Session",
    head: true,
    cell: (row) => (
      <a href={sessionHref(row.sessionKey)}>
        <KeyText value={row.sessionKey} />
      </a>
    ),
  },
  { name: "Size", class: "num", cell: (row) => byteSize(row.bytes) },
];

type Shard = MaintenanceReport["shards"][number];
const shardColumns: Column<Shard>[] = [
  { name: "Shard", head: true, cell: (row) => <code>{row.shard}</code> },
  { name: "Size", class: "num", cell: (row) => byteSize(row.bytes) },
];

function AgentStorage({ agent }: { agent: AgentMaintenance }) {
  const id = `agent-${agent.agentId}`;
  return (
    <section class="region" id={id} aria-labelledby={`${id}-title`} data-agent={agent.agentId}>
      <h2 id={`${id}-title`}>Agent {agent.agentId}</h2>
      <Facts
        facts={[
          ["Sessions", count(agent.sessions)],
          ["Messages", count(agent.messages)],
          ["Object storage", byteSize(agent.objectBytes)],
          ["Would archive", idle(agent.wouldArchive)],
          ["Would delete", idle(agent.wouldDelete)],
        ]}
      />
      <h3>Largest sessions</h3>
      {agent.largest.length === 0 ? (
        <Empty>No session has reported its size yet.</Empty>
      ) : (
        <DataTable
          class="storage"
          columns={largestColumns}
          rows={agent.largest}
          rowAttrs={(row) => ({ "data-key": row.sessionKey })}
          caption={`The largest sessions of ${agent.agentId}`}
        />
      )}
    </section>
  );
}

/**
 * The Storage page (SPEC §23 "The console shows the same figures"): `switchboard maintenance --dry-run`'s
 * report, per agent and per index shard. Read only: enforcing is the CLI's (or the daily pass's).
 */
export function StorageView({ report }: { report: MaintenanceReport }) {
  return (
    <div class="storage-page">
      <h1>Storage</h1>
      <p class="muted">
        What each agent's sessions hold, as each session last reported it, and what the retention policy (
        <code>session.maintenance</code>) would archive or delete now. Nothing here changes anything:{" "}
        <code>switchboard maintenance --enforce</code> applies the policy, and each agent's daily pass does.
      </p>
      {report.agents.map((agent) => (
        <AgentStorage agent={agent} />
      ))}
      <section class="region" id="shards" aria-labelledby="shards-title">
        <h2 id="shards-title">Index database (D1), per shard</h2>
        <DataTable
          class="storage"
          columns={shardColumns}
          rows={report.shards}
          rowAttrs={(row) => ({ "data-shard": row.shard })}
          caption="Index database shards"
        />
      </section>
    </div>
  );
}
