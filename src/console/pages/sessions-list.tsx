import type { Child } from "hono/jsx";
import type { SessionRow } from "../../session/api";
import { SESSION_KINDS, type SessionsListParams } from "../../tools/sessions-list";
import { type Column, DataTable } from "../data-table";
import { Empty, KeyText, Status, sessionHref, sessionTitle, Tokens, When } from "../ui";

export type ListFilters = SessionsListParams;

/** What the search form shows again: the words searched and their filters. */
export interface SearchFields {
  q: string;
  role?: string | undefined;
  includeTools?: boolean | undefined;
  sessionKey?: string | undefined;
}

const ARCHIVED_CHOICES = [
  ["", "Listed"],
  ["true", "Archived only"],
  ["all", "Listed and archived"],
] as const;

/** The `archived` select's value of the parsed filter (`includeArchived` is the older `"all"`). */
function archivedValue(filters: ListFilters): string {
  if (filters.archived === "all" || (filters.archived === undefined && filters.includeArchived)) return "all";
  return filters.archived === true ? "true" : "";
}

/** sessions_list's filters as a GET form: each field named as the tool's param, shown as last sent. */
function FilterForm({ filters }: { filters: ListFilters }) {
  const kinds = new Set(filters.kinds?.map((kind) => kind.trim().toLowerCase()));
  const archived = archivedValue(filters);
  return (
    <form class="filters" method="get" action="/console/sessions" aria-label="Filter sessions">
      <fieldset>
        <legend>Kinds</legend>
        {SESSION_KINDS.map((kind) => (
          <label>
            <input type="checkbox" name="kinds" value={kind} checked={kinds.has(kind)} /> {kind}
          </label>
        ))}
      </fieldset>
      <label for="f-agent">Agent</label>
      <input id="f-agent" name="agentId" value={filters.agentId ?? ""} autocomplete="off" />
      <label for="f-label">Label</label>
      <input id="f-label" name="label" value={filters.label ?? ""} autocomplete="off" />
      <label for="f-search">Name contains</label>
      <input id="f-search" name="search" type="search" value={filters.search ?? ""} />
      <label for="f-active">Active in the last (minutes)</label>
      <input id="f-active" name="activeMinutes" type="number" min="1" value={filters.activeMinutes ?? ""} />
      <label for="f-limit">Rows per page</label>
      <input id="f-limit" name="limit" type="number" min="1" max="200" value={filters.limit ?? ""} />
      <label for="f-archived">Archived</label>
      <select id="f-archived" name="archived">
        {ARCHIVED_CHOICES.map(([value, words]) => (
          <option value={value} selected={value === archived}>
            {words}
          </option>
        ))}
      </select>
      <button type="submit">Filter</button>
      <a href="/console/sessions">Clear</a>
    </form>
  );
}

/** sessions_search as a GET form: the words in `q`, with its role and tool-result options. */
function SearchForm({ search }: { search?: SearchFields | undefined }) {
  return (
    <form class="search" method="get" action="/console/sessions" aria-label="Search messages">
      <label for="q">Search messages</label>
      <input id="q" name="q" type="search" value={search?.q ?? ""} required />
      <label for="s-role">Role</label>
      <select id="s-role" name="role">
        {["", "user", "assistant"].map((role) => (
          <option value={role} selected={(search?.role ?? "") === role}>
            {role || "any"}
          </option>
        ))}
      </select>
      <label>
        <input type="checkbox" name="includeTools" value="true" checked={search?.includeTools === true} />{" "}
        Tool results too
      </label>
      {search?.sessionKey ? <input type="hidden" name="sessionKey" value={search.sessionKey} /> : null}
      <button type="submit">Search</button>
    </form>
  );
}

/**
 * Whether a filter of the form narrows the list (rows per page does not): the filters then show open,
 * so what hides sessions is in sight; otherwise they stay folded under the search.
 */
const filtering = (filters: ListFilters) =>
  Boolean(
    filters.kinds?.length ||
      filters.agentId ||
      filters.label ||
      filters.search ||
      filters.activeMinutes !== undefined ||
      archivedValue(filters),
  );

/** The sessions page: its filters and search, then the table or the search hits (`children`). */
export function SessionsView(props: { filters: ListFilters; search?: SearchFields; children: Child }) {
  return (
    <div class="sessions-page">
      <h1>Sessions</h1>
      <SearchForm search={props.search} />
      <details class="filter-box" open={filtering(props.filters)}>
        <summary>Filters{filtering(props.filters) ? " (in use)" : ""}</summary>
        <FilterForm filters={props.filters} />
      </details>
      {props.children}
    </div>
  );
}

export interface ListedSession {
  canonicalKey: string;
  row: SessionRow;
}

const SESSION_COLUMNS: Column<ListedSession>[] = [
  {
    name: "Session",
    head: true,
    cell: ({ canonicalKey, row }) => (
      <>
        <a href={sessionHref(canonicalKey)}>
          <KeyText value={row.key} />
        </a>
        {row.archived ? <span class="badge archived">archived</span> : null}
      </>
    ),
  },
  { name: "Title", cell: ({ row }) => sessionTitle(row) },
  { name: "Kind", cell: ({ row }) => row.kind },
  { name: "Channel", cell: ({ row }) => row.channel },
  { name: "Agent", cell: ({ row }) => row.agentId },
  { name: "Status", cell: ({ row }) => <Status value={row.status ?? "idle"} /> },
  { name: "Last activity", cell: ({ row }) => <When at={row.updatedAt} /> },
  { name: "Tokens", cell: ({ row }) => <Tokens count={row.totalTokens} /> },
];

/** One page of sessions, newest activity first, and the link to the next. */
export function SessionsTable({ rows, next }: { rows: ListedSession[]; next?: string | undefined }) {
  if (rows.length === 0) return <Empty>No sessions match.</Empty>;
  return (
    <>
      <DataTable
        class="sessions"
        columns={SESSION_COLUMNS}
        rows={rows}
        rowAttrs={({ canonicalKey }) => ({ "data-key": canonicalKey })}
      />
      {next ? (
        <a class="next" href={next}>
          Next page
        </a>
      ) : null}
    </>
  );
}
