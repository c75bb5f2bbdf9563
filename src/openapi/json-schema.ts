import { z } from "zod";
import { transcriptMessageSchema, transcriptMessageShape } from "../transcript/message";
import type { JsonSchema } from "./types";

/**
 * Schemas that validate through an opaque transform, with the shape they check. The document shows
 * the shape: `transcriptMessageSchema` keeps each message byte for byte, so it cannot be the shape.
 */
const opaqueShapes: [z.ZodType, z.ZodType][] = [[transcriptMessageSchema, transcriptMessageShape]];

/** The transform at the end of a pipe; `.refine()` clones a schema but keeps this one. */
function pipeOutput(schema: z.core.$ZodType): unknown {
  const def = schema._zod.def;
  return def.type === "pipe" ? (def as z.core.$ZodPipeDef).out : undefined;
}

function opaqueShapeOf(schema: z.core.$ZodType): z.ZodType | undefined {
  const out = pipeOutput(schema);
  return out ? opaqueShapes.find(([opaque]) => pipeOutput(opaque) === out)?.[1] : undefined;
}

/** The JSON Schema of a zod schema, without `$schema` (the document fixes the dialect). */
export function zodJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: (ctx) => {
      const shape = opaqueShapeOf(ctx.zodSchema);
      if (!shape) return;
      for (const key of Object.keys(ctx.jsonSchema)) Reflect.deleteProperty(ctx.jsonSchema, key);
      Object.assign(ctx.jsonSchema, zodJsonSchema(shape, io));
    },
  });
  return json;
}

/** True for a zod schema, false for a JSON Schema given as plain data. */
export function isZodSchema(schema: unknown): schema is z.ZodType {
  return schema instanceof z.ZodType;
}

function rewriteRefs(value: unknown, rename: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rename));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === "$ref" && typeof item === "string" ? rename(item) : rewriteRefs(item, rename),
    ]),
  );
}

/**
 * Moves a schema's `$defs` (zod emits them for recursive schemas) into `components.schemas` under
 * `<name>.<def>`, so its `#/$defs/…` references still resolve inside the OpenAPI document.
 */
export function hoistDefs(name: string, schema: JsonSchema, into: Record<string, JsonSchema>): JsonSchema {
  const { $defs, ...rest } = schema;
  if (typeof $defs !== "object" || $defs === null) return schema;
  const rename = (ref: string) =>
    ref.startsWith("#/$defs/") ? `#/components/schemas/${name}.${ref.slice("#/$defs/".length)}` : ref;
  for (const [id, def] of Object.entries($defs))
    into[`${name}.${id}`] = rewriteRefs(def, rename) as JsonSchema;
  return rewriteRefs(rest, rename) as JsonSchema;
}
