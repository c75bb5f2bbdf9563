import type { FetchLike } from "../../client/src/index";

/**
 * Everything the CLI needs from its host, so the commands are plain TypeScript with web-standard types
 * only: scripts/cli.mjs supplies Node's process, streams and files; a test can supply fakes.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** A spinner is drawn only on a terminal; piped or redirected stderr gets plain lines, if anything. */
  stderrIsTTY: boolean;
  readFile: (path: string) => Promise<string>;
  writeFile: (path: string, text: string) => Promise<void>;
  /** Replaces the global `fetch` (tests). */
  fetch?: FetchLike;
  /**
   * Ctrl-C calls `handler` instead of ending the process, until the returned function is called: a
   * live view (follow, send --stream) stops its stream and exits cleanly. Without it, Ctrl-C kills.
   */
  onInterrupt?: (handler: () => void) => () => void;
}

/** A mistake in the command line itself: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Process exit codes, also listed in `switchboard --help`. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  notFound: 4,
  unreachable: 5,
} as const;
