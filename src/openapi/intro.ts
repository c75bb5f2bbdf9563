import { errorStatus } from "../errors";

const errorTable = Object.entries(errorStatus)
  .map(([code, status]) => `| \`${code}\` | ${status} |`)
  .join("\n");

/** The document's introduction (Markdown): auth, input rules and the error model. */
export const apiIntroduction = `Hosted session tools for AI agents: list sessions, read a transcript, send a message into another session (and optionally wait for the reply), spawn and steer background sub-agents, read a status card. The same tools are served over \`/tools/invoke\`, \`/v1/tools/{name}\` and MCP, each from one schema.

**Auth.** Every \`/tools/*\`, \`/v1/*\` and \`/mcp\` request carries \`Authorization: Bearer <token>\`: an operator token (tool calls must then name the requester session, with \`sessionKey\` or the \`X-Switchboard-Session\` header), an agent token (acts as that agent's main session, or another session of the same agent), or a run token (acts as exactly its run's session). A grant token (\`sbg_…\`, from \`POST /v1/grants\`) reaches only its one session's read, send and events routes, with the scopes it was given. Channel webhooks sign their body instead (\`X-Switchboard-Signature\`). A missing or bad token is 401 with no detail; a valid token acting outside its scope is 403 with the reason.

**Tool input.** Strings are trimmed and an empty string counts as absent; each camelCase parameter also accepts its snake_case spelling (\`session_key\`); numbers are JSON numbers, floats floored. A missing required parameter is a 400 (\`<name> required\`). Policy and lookup failures are results, \`{ status: "forbidden" | "error", error }\`, answered with 200.

**Consistency.** The index's reads go through D1 sessions, served by the nearest read replica. Every answer of an authenticated route carries \`Switchboard-Bookmark\` (per index shard, where your next read must start); send it back as it came with your next request and that request reads at least what you saw and wrote. Without it, a read may be served by a replica a moment behind.

**Errors.** \`{ "error": { "code", "message" } }\` (on \`/tools/invoke\`: \`{ "ok": false, "error": { "type", "message" } }\`). Request bodies are limited to 2 MB.

| code | HTTP status |
|---|---|
${errorTable}`;

/** Each tag's one-line description, in the order the reference shows them. */
export const apiTags = [
  {
    name: "Tools",
    description: "The session tools, one operation per registered tool, and OpenClaw's `/tools/invoke`.",
  },
  {
    name: "Sessions",
    description: "Operator and integration REST: create, read, update, delete, import, export, chat.send.",
  },
  {
    name: "Runs",
    description: "Agent runs: read, wait (agent.wait), and a webhook agent's deferred result.",
  },
  {
    name: "Grants",
    description: "Scoped, expiring tokens for one session: read, send, events (SPEC §18).",
  },
  {
    name: "Streams",
    description:
      "Live server-sent event streams: a session's events (and its sub-agents'), one run's reply as it is written; resumable with Last-Event-ID.",
  },
  {
    name: "Deliveries",
    description:
      "The delivery ledger: every handoff that must reach someone, where it stands, and retry or dismiss (SPEC §16).",
  },
  {
    name: "Cron",
    description:
      "Scheduled jobs of an agent (SPEC §22): at, every or cron with an IANA zone; each slot runs exactly once, with its runs' history. The same as the `cron` tool.",
  },
  {
    name: "Channels",
    description: "Inbound messages from chat integrations, signed with the channel's secret.",
  },
  {
    name: "Hooks",
    description:
      "Another system starts a run of an agent: JSON proved with the hook's own secret (SPEC §22).",
  },
  {
    name: "Maintenance",
    description:
      "Storage per agent and shard, and the retention policy applied in bounded batches (SPEC §23).",
  },
  {
    name: "MCP",
    description: "The same tools over the Model Context Protocol (Streamable HTTP, stateless).",
  },
  { name: "Service", description: "Health, this document and the reference page; no token needed." },
];
