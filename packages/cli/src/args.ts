import { UsageError } from "./io";

export type FlagKind = "string" | "boolean";
export type FlagSpec = Record<string, FlagKind>;
export type Flags = Record<string, string | boolean>;

export interface ParsedArgs {
  positionals: string[];
  flags: Flags;
}

/**
 * Splits argv into positionals and `--flag value` / `--flag=value` / `--switch` options, by the kinds in
 * `spec`; `-h` is `--help`; after `--` everything is positional. Unknown flags are usage errors.
 */
export function parseArgv(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const positionals: string[] = [];
  const flags: Flags = {};
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    if (kind === "boolean") {
      if (equals !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = equals === -1 ? argv[++index] : arg.slice(equals + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags[name] = value;
  }
  return { positionals, flags };
}

/** A string flag's value, if given. */
export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

/** A non-negative number flag (seconds, counts), if given; anything else is a usage error. */
export function numberFlag(flags: Flags, name: string): number | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number < 0)
    throw new UsageError(`--${name} must be a number ≥ 0, not "${value}"`);
  return number;
}
