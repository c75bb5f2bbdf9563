// Sections of docs/benchmarks.md that a group of the bench rewrites alone (`BENCH_ONLY=<group>`): each
// sits between its own markers, ahead of the notes, which are kept between runs.
import { readFileSync, writeFileSync } from "node:fs";

const FILE = "docs/benchmarks.md";

/**
 * Replaces the text from `start` to `end` (markers included) with `section` in `file`; new ones go before
 * the notes.
 */
export function writeSection(start, end, section, file = FILE) {
  const text = readFileSync(file, "utf8");
  const at = text.indexOf(start);
  const next =
    at !== -1
      ? text.slice(0, at) + section + text.slice(text.indexOf(end) + end.length)
      : text.replace("<!-- notes -->", `${section}\n\n<!-- notes -->`);
  writeFileSync(file, next);
}

/** The section from `start` to `end` (markers included) as docs/benchmarks.md has it now, or "". */
export function keptSection(start, end) {
  const text = readFileSync(FILE, "utf8");
  const at = text.indexOf(start);
  const stop = text.indexOf(end);
  return at === -1 || stop === -1 ? "" : text.slice(at, stop + end.length);
}
