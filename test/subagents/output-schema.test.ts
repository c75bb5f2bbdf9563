import { describe, expect, it } from "vitest";
import { outputSchemaError, schemaViolations } from "../../src/subagents/output-schema";

describe("collector outputSchema (SPEC §15)", () => {
  it("accepts an ordinary object schema and lists what a value breaks, innermost first", () => {
    const schema = {
      type: "object",
      properties: { title: { type: "string", minLength: 1 }, score: { type: "number", maximum: 10 } },
      required: ["title", "score"],
      additionalProperties: false,
    };
    expect(outputSchemaError(schema)).toBeUndefined();
    expect(schemaViolations(schema, { title: "ok", score: 3 })).toEqual([]);
    const errors = schemaViolations(schema, { title: "", score: 11, extra: true });
    expect(errors.some((error) => error.startsWith("title:"))).toBe(true);
    expect(errors.some((error) => error.startsWith("score:"))).toBe(true);
    expect(schemaViolations(schema, "text")[0]).toMatch(/^\(root\): /);
  });

  it("says why a schema is unusable: not an object, a bad type, a bad keyword, a bad pattern, a bad $ref", () => {
    expect(outputSchemaError([])).toBe("it must be a JSON Schema object");
    expect(outputSchemaError("string")).toBe("it must be a JSON Schema object");
    expect(outputSchemaError({ type: "text" })).toMatch(/^type: /);
    expect(outputSchemaError({ properties: { a: { minLength: -1 } } })).toMatch(
      /^properties\.a\.minLength: /,
    );
    expect(outputSchemaError({ required: "title" })).toMatch(/^required: /);
    expect(outputSchemaError({ properties: { a: { pattern: "(" } } })).toMatch(
      /^properties\.a: pattern "\(" is not a valid regular expression$/,
    );
    expect(outputSchemaError({ $ref: "#/$defs/missing" })).toBeDefined();
    expect(outputSchemaError({ description: "x".repeat(17 * 1024) })).toMatch(/bytes; at most 16384/);
  });
});
