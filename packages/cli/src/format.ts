import type { TranscriptMessage } from "../../client/src/index";

const pad2 = (value: number) => String(value).padStart(2, "0");

/** A local wall-clock time, `YYYY-MM-DD HH:MM:SS`. */
export function clockTime(ms: number): string {
  const date = new Date(ms);
  return (
    `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ` +
    `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`
  );
}

/** A time of today as `HH:MM:SS`; of another day with its date (`clockTime`). */
export function shortTime(ms: number, now = Date.now()): string {
  const full = clockTime(ms);
  return full.slice(0, 10) === clockTime(now).slice(0, 10) ? full.slice(11) : full;
}

/** How long ago, for a listing: `just now`, `5m ago`, `3h ago`, `2d ago`, then the date. */
export function timeAgo(ms: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  if (seconds < 7 * 86_400) return `${Math.floor(seconds / 86_400)}d ago`;
  return clockTime(ms).slice(0, 10);
}

/** Cuts a one-line cell to `max` characters, with `…` when cut. */
export function cell(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** A plain text table: a header row, then the rows, columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (row: string[]) =>
    row
      .map((value, column) => (column === row.length - 1 ? value : value.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers.map((header) => header.toUpperCase())), ...rows.map(line)].join("\n");
}

/** A message's readable text: text blocks as they are, other blocks as short markers. */
export function messageText(message: TranscriptMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => {
      if (block.type === "text") return block.text;
      if (block.type === "toolCall") return `[tool call: ${block.name}]`;
      if (block.type === "image") return "[image]";
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** A readable transcript: each message as a `time  role` line and its text, indented. */
export function transcriptText(messages: TranscriptMessage[]): string {
  return messages
    .map((message) => {
      const source = message.provenance?.kind;
      const role = source && source !== "external_user" ? `${message.role} (${source})` : message.role;
      const text = messageText(message) || "(no text)";
      const body = text
        .split("\n")
        .map((line) => `  ${line}`)
        .join("\n");
      return `${clockTime(message.timestamp)}  ${role}\n${body}`;
    })
    .join("\n\n");
}

/** A size as a person writes it: `812 B`, `14.2 KB`, `3.4 MB`, `1.2 GB` (decimal units, as D1's limits are). */
export function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** A duration as a person writes it: `0.4 s`, `12 s`, `3 min 4 s`. */
export function duration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** A count with thousands separators: `58,311`. */
export const count = (value: number) => value.toLocaleString("en-US");
