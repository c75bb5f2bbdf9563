/** How a console page's query fields map onto a tool's JSON params. */
export interface QueryTypes {
  /** Fields that may repeat (`kinds=main&kinds=cron`) or hold a comma-separated list. */
  lists?: readonly string[];
  /** Fields a number, when their text is one. */
  numbers?: readonly string[];
  /** Fields a boolean, when their text is one (a checkbox sends `true` or `on`). */
  booleans?: readonly string[];
}

const NUMBER = /^-?\d+(\.\d+)?$/;
const TRUE = new Set(["true", "on", "1"]);
const FALSE = new Set(["false", "0"]);

function typed(name: string, text: string, types: QueryTypes): unknown {
  if (types.numbers?.includes(name) && NUMBER.test(text)) return Number(text);
  if (types.booleans?.includes(name)) {
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
  }
  return text;
}

/**
 * A page's query (a GET form's fields) as the JSON params of the tool whose schema then validates them:
 * values trimmed, blank fields left out (a form sends every field), lists gathered, numbers and booleans
 * read from their text. Text that is neither stays text, so the schema's error names the field.
 */
export function queryArgs(query: Record<string, string[]>, types: QueryTypes): Record<string, unknown> {
  const args: Record<string, unknown> = Object.create(null);
  for (const [name, raw] of Object.entries(query)) {
    const isList = types.lists?.includes(name) ?? false;
    const values = (isList ? raw.flatMap((value) => value.split(",")) : raw)
      .map((value) => value.trim())
      .filter((value) => value !== "");
    if (values.length === 0) continue;
    args[name] = isList ? values : typed(name, values[0] ?? "", types);
  }
  return args;
}

/** The page's URL with `cursor` set to the next page's (and any offset dropped), the other fields kept. */
export function nextPageHref(path: string, current: URLSearchParams, cursor: string): string {
  const next = new URLSearchParams(current);
  next.delete("offset");
  next.set("cursor", cursor);
  return `${path}?${next.toString()}`;
}
