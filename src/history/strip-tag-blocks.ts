import { findCodeSpans, isInsideCode } from "./code-spans";

/**
 * Removes `<name …>…</name>` blocks (any of the `|`-separated tag names, case-insensitive) outside code.
 * An unclosed block hides the rest of the text, because what follows it is the hidden content; a
 * self-closing or lone closing tag is removed on its own.
 */
export function stripTagBlocks(text: string, names: string): string {
  const anyTag = new RegExp(`<\\s*(\\/?)\\s*(?:${names})(?=[\\s/>])[^<>]*>`, "gi");
  const closeTag = new RegExp(`<\\s*\\/\\s*(?:${names})\\s*>`, "gi");
  const code = findCodeSpans(text);
  let out = "";
  let cursor = 0;
  for (let tag = anyTag.exec(text); tag !== null; tag = anyTag.exec(text)) {
    if (isInsideCode(code, tag.index)) continue;
    out += text.slice(cursor, tag.index);
    cursor = tag.index + tag[0].length;
    const isClosing = tag[1] === "/";
    if (isClosing || tag[0].endsWith("/>")) continue;
    closeTag.lastIndex = cursor;
    const close = closeTag.exec(text);
    if (close === null) return out;
    cursor = close.index + close[0].length;
    anyTag.lastIndex = cursor;
  }
  return out + text.slice(cursor);
}

/** Removes every match of the global `pattern` that starts outside code. */
export function removeMatchesOutsideCode(text: string, pattern: RegExp): string {
  const code = findCodeSpans(text);
  return text.replace(pattern, (match: string, ...rest: unknown[]) => {
    const offset = rest.find((value) => typeof value === "number");
    return typeof offset === "number" && isInsideCode(code, offset) ? match : "";
  });
}
