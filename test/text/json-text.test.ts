import { describe, expect, it } from "vitest";
import { JsonText, stringifyJson } from "../../src/text/json-text";

describe("JsonText", () => {
  const stored = '[{"id":"m1","content":"a \\"quoted\\" é"},{"id":"m2","n":1.5e3}]';

  it("is written into stringifyJson's output as it is, byte for byte", () => {
    const json = stringifyJson({ before: 1, messages: new JsonText(stored), after: ["x"] });
    expect(json).toBe(`{"before":1,"messages":${stored},"after":["x"]}`);
  });

  it("serializes to the same JSON value through JSON.stringify (its parsed value)", () => {
    const value = { messages: new JsonText(stored), nested: { again: new JsonText("[]") } };
    expect(JSON.parse(JSON.stringify(value))).toEqual(JSON.parse(stringifyJson(value)));
    expect(JSON.parse(stringifyJson(value))).toEqual({ messages: JSON.parse(stored), nested: { again: [] } });
  });

  it("leaves strings that look like its placeholder alone, and several texts each in place", () => {
    const value = {
      a: new JsonText('"first"'),
      look: "json-text:not-the-marker:0",
      b: [new JsonText("2"), new JsonText('{"c":3}')],
    };
    expect(stringifyJson(value)).toBe('{"a":"first","look":"json-text:not-the-marker:0","b":[2,{"c":3}]}');
  });

  it("is plain JSON.stringify for a value without one, and leaves no splicing behind after a throw", () => {
    expect(stringifyJson({ a: [1, "b"] })).toBe('{"a":[1,"b"]}');
    const cyclic: Record<string, unknown> = { text: new JsonText("1") };
    cyclic.self = cyclic;
    expect(() => stringifyJson(cyclic)).toThrow();
    expect(JSON.stringify({ t: new JsonText("[1]") })).toBe('{"t":[1]}');
  });
});
