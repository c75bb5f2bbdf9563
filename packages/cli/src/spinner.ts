import type { CliIo } from "./io";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

export interface Progress {
  /** Changes the label; off a terminal, `lines` mode prints each new label once. */
  update: (label: string) => void;
  stop: () => void;
}

/**
 * A spinner with a label and the elapsed seconds on stderr, drawn only when stderr is a terminal, so
 * stdout stays clean for the answer. With `lines`, a non-terminal still gets each new label as a line.
 */
export function startProgress(io: CliIo, label: string, options: { lines?: boolean } = {}): Progress {
  const started = Date.now();
  let current = label;
  if (!io.stderrIsTTY) {
    if (options.lines) io.stderr(`${label}\n`);
    return {
      update(next) {
        if (options.lines && next !== current) io.stderr(`${next}\n`);
        current = next;
      },
      stop() {},
    };
  }
  let frame = 0;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    io.stderr(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${current} (${seconds}s)`);
  };
  draw();
  const timer = setInterval(draw, FRAME_MS);
  return {
    update(next) {
      current = next;
    },
    stop() {
      clearInterval(timer);
      io.stderr("\r\x1b[K");
    },
  };
}

/** Runs `work` with a spinner on stderr, cleared before anything else is printed. */
export async function withProgress<T>(io: CliIo, label: string, work: () => Promise<T>): Promise<T> {
  const progress = startProgress(io, label);
  try {
    return await work();
  } finally {
    progress.stop();
  }
}
