import { DEFAULT_BASE_URL, SwitchboardClient, SwitchboardError } from "../../client/src/index";
import { agentsWaitCommand } from "./agents-wait";
import { type FlagSpec, parseArgv, stringFlag } from "./args";
import { channelsCommand } from "./channels";
import type { Command } from "./command";
import { compactCommand } from "./compact";
import { cronCommand } from "./cron";
import { deliveriesCommand } from "./deliveries";
import { cliErrorMessage, exitCodeOf } from "./errors";
import { grantCommand, revokeGrantCommand } from "./grants";
import { commandHelp, mainHelp } from "./help";
import { type CliIo, EXIT, UsageError } from "./io";
import { followCommand } from "./live";
import { maintenanceCommand } from "./maintenance";
import { sessionsCommand } from "./manage";
import { sendCommand, waitCommand } from "./messaging";
import { searchCommand } from "./search";
import { secretCommand } from "./secret";
import {
  agentsCommand,
  createCommand,
  healthCommand,
  historyCommand,
  listCommand,
  statusCommand,
} from "./sessions";
import { spawnCommand } from "./spawn";
import { subagentsCommand } from "./subagents";
import { exportCommand, importCommand } from "./transcript";

export const commands: Command[] = [
  listCommand,
  historyCommand,
  sendCommand,
  waitCommand,
  followCommand,
  spawnCommand,
  subagentsCommand,
  agentsWaitCommand,
  statusCommand,
  agentsCommand,
  createCommand,
  sessionsCommand,
  importCommand,
  exportCommand,
  compactCommand,
  grantCommand,
  revokeGrantCommand,
  deliveriesCommand,
  channelsCommand,
  cronCommand,
  maintenanceCommand,
  healthCommand,
  secretCommand,
  searchCommand,
];

const GLOBAL_FLAGS: FlagSpec = {
  url: "string",
  token: "string",
  session: "string",
  json: "boolean",
  help: "boolean",
};
// Every command's flags, so `--x value` is read right wherever it sits; each command then checks its own.
const ALL_FLAGS: FlagSpec = Object.assign({}, GLOBAL_FLAGS, ...commands.map((command) => command.flags));

/** Runs one CLI invocation; returns the process exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: Command | undefined;
  let json = false;
  let baseUrl = io.env.SWITCHBOARD_URL || DEFAULT_BASE_URL;
  try {
    const { positionals, flags } = parseArgv(argv, ALL_FLAGS);
    json = flags.json === true;
    const [name, ...rest] = positionals;
    if (name === "help" || (name === undefined && flags.help)) {
      const topic = commands.find((candidate) => candidate.name === rest[0]);
      io.stdout(topic ? commandHelp(topic) : mainHelp(commands));
      return EXIT.ok;
    }
    if (name === undefined) {
      io.stderr(mainHelp(commands));
      return EXIT.usage;
    }
    command = commands.find((candidate) => candidate.name === name);
    if (!command) throw new UsageError(`unknown command "${name}"`);
    if (flags.help) {
      io.stdout(commandHelp(command));
      return EXIT.ok;
    }
    for (const flag of Object.keys(flags)) {
      if (!(flag in GLOBAL_FLAGS) && !(flag in command.flags))
        throw new UsageError(`${command.name} has no option --${flag}`);
    }
    baseUrl = stringFlag(flags, "url") || baseUrl;
    const token = stringFlag(flags, "token") || io.env.SWITCHBOARD_TOKEN;
    const session = stringFlag(flags, "session") || io.env.SWITCHBOARD_SESSION;
    if (!token && command !== healthCommand && !command.offline)
      throw new UsageError(
        "no token: set SWITCHBOARD_TOKEN or pass --token (npm start prints the local tokens)",
      );
    const client = new SwitchboardClient({
      baseUrl,
      ...(token ? { token } : {}),
      ...(session ? { session } : {}),
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    return await command.run({ io, client, baseUrl, json, positionals: rest, flags });
  } catch (error) {
    if (error instanceof UsageError) {
      const help = command ? `switchboard ${command.name} --help` : "switchboard --help";
      io.stderr(`${error.message}\nsee: ${help}\n`);
      return EXIT.usage;
    }
    const message = cliErrorMessage(error, baseUrl);
    if (json && error instanceof SwitchboardError) {
      const { kind, code, status } = error;
      io.stdout(`${JSON.stringify({ error: { kind, code, status, message } }, null, 2)}\n`);
    }
    io.stderr(`${message}\n`);
    return exitCodeOf(error);
  }
}
