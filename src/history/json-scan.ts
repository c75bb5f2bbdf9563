// Quote-aware scanning of JSON-ish payloads embedded in prose: a bracket or tag inside a JSON string
// is data, not structure, so it must not end the payload.

/** Index just past the JSON object or array that starts at `start`; null when it never closes. */
export function endOfJsonValue(text: string, start: number): number | null {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === "{" || char === "[") {
      depth += 1;
    } else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return null;
}

/** Index just past the first sticky `closeTag` match at or after `from` outside JSON strings; null if none. */
export function endOfCloseTagOutsideStrings(text: string, from: number, closeTag: RegExp): number | null {
  let inString = false;
  for (let index = from; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      continue;
    }
    if (char !== "<") continue;
    closeTag.lastIndex = index;
    const match = closeTag.exec(text);
    if (match !== null) return index + match[0].length;
  }
  return null;
}
