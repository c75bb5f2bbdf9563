import { SwitchboardError } from "../../client/src/index";
import { EXIT } from "./io";

/** The CLI's wording for a failed call: what happened and what to do, in terms of the CLI's own knobs. */
export function cliErrorMessage(error: unknown, baseUrl: string): string {
  if (!(error instanceof SwitchboardError))
    return `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  switch (error.kind) {
    case "unauthorized":
      return "the token was refused: check SWITCHBOARD_TOKEN (or --token); npm start prints the local tokens";
    case "network":
      return `cannot reach ${baseUrl}: is \`npm start\` running? (set SWITCHBOARD_URL or --url for another server)`;
    case "forbidden":
      return `forbidden: ${error.serverMessage ?? "this token may not do that"} (check --token and --session)`;
    case "bad_request":
      // The operator token acts for no session of its own: tool calls need one named.
      return error.serverMessage?.includes("X-Switchboard-Session")
        ? `${error.message}\nwith the operator token, pass --session agent:<id>:<key> (or set SWITCHBOARD_SESSION)`
        : error.message;
    default:
      return error.message;
  }
}

/** Exit codes by failure (listed in `switchboard --help`). */
export function exitCodeOf(error: unknown): number {
  if (!(error instanceof SwitchboardError)) return EXIT.failed;
  if (error.kind === "unauthorized" || error.kind === "forbidden") return EXIT.refused;
  if (error.kind === "not_found") return EXIT.notFound;
  if (error.kind === "network") return EXIT.unreachable;
  return EXIT.failed;
}
