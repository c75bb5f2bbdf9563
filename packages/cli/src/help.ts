import type { Command } from "./command";

const GLOBAL_OPTIONS = `Global options:
  --url URL        the service, default $SWITCHBOARD_URL or http://127.0.0.1:8787
  --token TOKEN    bearer token, default $SWITCHBOARD_TOKEN (npm start prints the local ones)
  --session KEY    act as this requester session (X-Switchboard-Session), default $SWITCHBOARD_SESSION;
                   needed with the operator token, optional with an agent token (its main session);
                   with deliveries, a filter: only that session's records; with search, also
                   the one session searched
  --json           print the raw JSON answer
  -h, --help       help, also per command: switchboard <command> --help`;

/** `switchboard --help`. */
export function mainHelp(commands: Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const list = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n");
  return `switchboard: Switchboard's session tools from the command line

Usage: switchboard <command> [arguments] [options]

Commands:
${list}

${GLOBAL_OPTIONS}

Exit codes: 0 ok · 1 failed (a tool's error result, a server error, no reply yet) · 2 usage
            3 token refused or forbidden · 4 not found · 5 service unreachable

Example:
  SWITCHBOARD_TOKEN=local-main-token switchboard list
  SWITCHBOARD_TOKEN=local-main-token switchboard follow main   # live, until Ctrl-C
`;
}

/** `switchboard <command> --help`. */
export function commandHelp(command: Command): string {
  return `switchboard ${command.usage}

${command.summary}

${command.details}

${GLOBAL_OPTIONS}
`;
}
