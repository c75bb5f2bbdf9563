import { findCodeSpans, isInsideCode } from "./code-spans";
import { endOfJsonValue } from "./json-scan";

// Text a runtime writes when it downgrades structured tool calls into prose for a model that cannot
// replay them; it is plumbing, not something the assistant said.
const SCAFFOLDING_MARKER = /\[Tool Call:[^\]\n]*\]|\[Tool Result for ID[^\]\n]*\]|\[Historical context:/gi;
const ARGUMENTS_LABEL = /[ \t]*\r?\n?[ \t]*Arguments:[ \t]*/iy;
const BLANK_LINE = /\n[ \t]*\r?\n/g;

/**
 * Removes `[Tool Call: …]` markers with their `Arguments:` payload, `[Tool Result for ID …]` blocks up
 * to the next blank line, and `[Historical context: …]` markers, outside code.
 */
export function stripDowngradedScaffolding(text: string): string {
  if (!/\[(?:Tool Call|Tool Result|Historical context)/i.test(text)) return text;
  const code = findCodeSpans(text);
  const markers = new RegExp(SCAFFOLDING_MARKER.source, SCAFFOLDING_MARKER.flags);
  let out = "";
  let cursor = 0;
  for (let marker = markers.exec(text); marker !== null; marker = markers.exec(text)) {
    if (isInsideCode(code, marker.index)) continue;
    out += text.slice(cursor, marker.index);
    cursor = endOfScaffolding(text, marker.index, marker[0]);
    markers.lastIndex = cursor;
  }
  return out + text.slice(cursor);
}

function endOfScaffolding(text: string, start: number, marker: string): number {
  const lowered = marker.toLowerCase();
  const markerEnd = start + marker.length;
  if (lowered.startsWith("[tool call")) return endOfToolCallArguments(text, markerEnd);
  if (lowered.startsWith("[tool result")) return endOfBlock(text, markerEnd);
  // `[Historical context: …]` may quote JSON with its own brackets, so match the outer bracket.
  return endOfJsonValue(text, start) ?? endOfLine(text, markerEnd);
}

function endOfToolCallArguments(text: string, markerEnd: number): number {
  ARGUMENTS_LABEL.lastIndex = markerEnd;
  const label = ARGUMENTS_LABEL.exec(text);
  if (label === null) return markerEnd;
  const payloadStart = markerEnd + label[0].length;
  const firstChar = text[payloadStart];
  if (firstChar === "{" || firstChar === "[") return endOfJsonValue(text, payloadStart) ?? text.length;
  return endOfLine(text, payloadStart);
}

function endOfBlock(text: string, from: number): number {
  BLANK_LINE.lastIndex = from;
  const blank = BLANK_LINE.exec(text);
  return blank === null ? text.length : blank.index;
}

function endOfLine(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  return newline === -1 ? text.length : newline;
}
