/**
 * A value already serialized as JSON (a history page's stored messages): `stringifyJson` writes it into
 * an answer as it is, so the text read from storage is neither parsed nor serialized again. Anything
 * else that serializes it (`JSON.stringify`, the MCP SDK) gets its parsed value through `toJSON`: the
 * same JSON, just slower.
 */
export class JsonText {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toJSON(): unknown {
    if (splicing) return `${splicing.marker}${splicing.texts.push(this.text) - 1}`;
    return JSON.parse(this.text);
  }
}

/** While `stringifyJson` runs (synchronously, so never interleaved): where each JsonText's text goes. */
let splicing: { marker: string; texts: string[] } | undefined;

/** `JSON.stringify(value)`, with each JsonText inside written as its text. */
export function stringifyJson(value: unknown): string {
  // A fresh marker per call: no string in the value can contain it by chance.
  const marker = `json-text:${crypto.randomUUID()}:`;
  const texts: string[] = [];
  splicing = { marker, texts };
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    splicing = undefined;
  }
  if (texts.length === 0) return json;
  return json.replace(
    new RegExp(`"${marker}(\\d+)"`, "g"),
    (_, index: string) => texts[Number(index)] ?? "null",
  );
}
