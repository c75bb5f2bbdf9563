import { type Schema, Validator } from "@cfworker/json-schema";
import { jsonBytes } from "../history/byte-cap";

/** A collector's `outputSchema` is stored with its child and shown in its tool description: kept small. */
export const MAX_OUTPUT_SCHEMA_BYTES = 16 * 1024;
const DRAFT = "2020-12";
const TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];

/**
 * The keywords whose shape the validator relies on, checked before it ever sees the schema: it
 * interprets rather than compiles, so a malformed keyword would otherwise fail only on the child's first
 * `structured_output` call, or be ignored. Unknown keywords are allowed, as JSON Schema allows them.
 */
const META_SCHEMA: Schema = {
  $id: "switchboard:output-schema-meta",
  $defs: {
    schema: {
      type: ["object", "boolean"],
      properties: {
        type: {
          anyOf: [{ enum: TYPES }, { type: "array", items: { enum: TYPES }, minItems: 1, uniqueItems: true }],
        },
        properties: { type: "object", additionalProperties: { $ref: "#/$defs/schema" } },
        patternProperties: { type: "object", additionalProperties: { $ref: "#/$defs/schema" } },
        additionalProperties: { $ref: "#/$defs/schema" },
        items: { $ref: "#/$defs/schema" },
        prefixItems: { type: "array", items: { $ref: "#/$defs/schema" } },
        contains: { $ref: "#/$defs/schema" },
        not: { $ref: "#/$defs/schema" },
        if: { $ref: "#/$defs/schema" },
        // JSON Schema's keyword, in a plain data object nobody awaits.
        // biome-ignore lint/suspicious/noThenProperty: see above
        then: { $ref: "#/$defs/schema" },
        else: { $ref: "#/$defs/schema" },
        allOf: { $ref: "#/$defs/schemaList" },
        anyOf: { $ref: "#/$defs/schemaList" },
        oneOf: { $ref: "#/$defs/schemaList" },
        $defs: { type: "object", additionalProperties: { $ref: "#/$defs/schema" } },
        required: { type: "array", items: { type: "string" }, uniqueItems: true },
        enum: { type: "array" },
        pattern: { type: "string" },
        format: { type: "string" },
        $ref: { type: "string" },
        minLength: { $ref: "#/$defs/count" },
        maxLength: { $ref: "#/$defs/count" },
        minItems: { $ref: "#/$defs/count" },
        maxItems: { $ref: "#/$defs/count" },
        minProperties: { $ref: "#/$defs/count" },
        maxProperties: { $ref: "#/$defs/count" },
        minimum: { type: "number" },
        maximum: { type: "number" },
        exclusiveMinimum: { type: "number" },
        exclusiveMaximum: { type: "number" },
        multipleOf: { type: "number", exclusiveMinimum: 0 },
        uniqueItems: { type: "boolean" },
      },
    },
    schemaList: { type: "array", minItems: 1, items: { $ref: "#/$defs/schema" } },
    count: { type: "integer", minimum: 0 },
  },
  $ref: "#/$defs/schema",
};
const metaValidator = new Validator(META_SCHEMA, DRAFT, false);

/** `/properties/a` → `properties.a`, or `(root)`: the place a person would look. */
function place(pointer: string): string {
  const path = pointer.replace(/^#?\/?/, "").replaceAll("/", ".");
  return path === "" ? "(root)" : path;
}

/** Every `pattern` and `patternProperties` key, which must compile as the validator's RegExp. */
function badPattern(node: unknown, path: string): string | undefined {
  if (node === null || typeof node !== "object") return undefined;
  const entries = Object.entries(node as Record<string, unknown>);
  for (const [key, value] of entries) {
    const patterns =
      key === "pattern" && typeof value === "string"
        ? [value]
        : key === "patternProperties" && value && typeof value === "object"
          ? Object.keys(value)
          : [];
    for (const pattern of patterns) {
      try {
        new RegExp(pattern, "u");
      } catch {
        return `${path || "(root)"}: pattern ${JSON.stringify(pattern)} is not a valid regular expression`;
      }
    }
    const nested = badPattern(value, path ? `${path}.${key}` : key);
    if (nested) return nested;
  }
  return undefined;
}

/** Why `schema` cannot be a collector's `outputSchema`, or undefined when it can (SPEC §15 preflight). */
export function outputSchemaError(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema))
    return "it must be a JSON Schema object";
  const bytes = jsonBytes(schema);
  if (bytes > MAX_OUTPUT_SCHEMA_BYTES)
    return `it is ${bytes} bytes; at most ${MAX_OUTPUT_SCHEMA_BYTES} are allowed`;
  const shape = metaValidator.validate(schema);
  const wrong = shape.errors.findLast((error) => error.keyword !== "$ref" && error.keyword !== "anyOf");
  if (!shape.valid) return `${place(wrong?.instanceLocation ?? "")}: ${wrong?.error ?? "not a valid schema"}`;
  const pattern = badPattern(schema, "");
  if (pattern) return pattern;
  try {
    // An unresolvable $ref throws only once the validator follows it.
    new Validator(schema as Schema, DRAFT, false).validate(null);
  } catch (cause) {
    return cause instanceof Error ? cause.message : String(cause);
  }
  return undefined;
}

/**
 * The ways `value` breaks `schema` (already checked by outputSchemaError), each as `place: why`, most
 * specific first; empty when it is valid.
 */
export function schemaViolations(schema: Record<string, unknown>, value: unknown): string[] {
  const result = new Validator(schema as Schema, DRAFT, false).validate(value);
  if (result.valid) return [];
  // The validator reports from the outside in; the innermost failures say what to fix.
  return [
    ...new Set(result.errors.reverse().map((error) => `${place(error.instanceLocation)}: ${error.error}`)),
  ];
}
