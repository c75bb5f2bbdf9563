import { isToolFailure, type SwitchboardClient } from "../../client/src/index";
import type { FlagSpec, Flags } from "./args";
import { type CliIo, EXIT, UsageError } from "./io";

/** What a command runs with: the client, its own positionals and flags, and how to print. */
export interface CommandContext {
  io: CliIo;
  client: SwitchboardClient;
  baseUrl: string;
  json: boolean;
  positionals: string[];
  flags: Flags;
}

export interface Command {
  name: string;
  /** One line: the arguments and options. */
  usage: string;
  summary: string;
  /** The rest of `--help`: what it does, its options, an example. */
  details: string;
  flags: FlagSpec;
  /** Runs without the service's credentials (no token asked for). */
  offline?: boolean;
  run: (ctx: CommandContext) => Promise<number>;
}

/** Prints `value` as JSON with `--json`, else the human text (nothing when empty). */
export function output(ctx: CommandContext, value: unknown, human: () => string): void {
  if (ctx.json) {
    ctx.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const text = human();
  if (text !== "") ctx.io.stdout(text.endsWith("\n") ? text : `${text}\n`);
}

/** A note for the person at the terminal (stderr, so stdout stays the answer); silent with `--json`. */
export function note(ctx: CommandContext, text: string): void {
  if (!ctx.json) ctx.io.stderr(`${text}\n`);
}

/**
 * A tool's refusal (`{ status: "error" | "forbidden", error }`) is a result, not an HTTP error: printed
 * (as JSON with `--json`), and the command ends with a non-zero exit code. Undefined when not a refusal.
 */
export function refusal(ctx: CommandContext, result: object): number | undefined {
  if (!isToolFailure(result)) return undefined;
  if (ctx.json) ctx.io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else ctx.io.stderr(`${result.status}: ${result.error}\n`);
  return result.status === "forbidden" ? EXIT.refused : EXIT.failed;
}

/** The positional at `index`, or a usage error naming it. */
export function required(ctx: CommandContext, index: number, name: string): string {
  const value = ctx.positionals[index];
  if (value === undefined || value.trim() === "") throw new UsageError(`<${name}> required`);
  return value;
}

/** Waits `ms` (progress polling). */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
