import { type OutputUnit, Validator } from "@cfworker/json-schema";
import type { JsonSchema, OpenApiDocument } from "../../src/openapi/types";
import { at, resolvePointer } from "./check-openapi";

/**
 * Checks `value` against a schema of the document (its `$ref`s into `components` resolve, as a client's
 * validator would resolve them): the errors, or `[]`.
 */
export function schemaErrors(doc: OpenApiDocument, schema: unknown, value: unknown): string[] {
  const root = { ...(schema as JsonSchema), components: doc.components };
  const result = new Validator(root, "2020-12", false).validate(value);
  return result.errors.map((error: OutputUnit) => `${error.instanceLocation}: ${error.error}`);
}

/** The schema a response of `method path` documents for `status`, following a `$ref` to a component. */
export function responseSchema(
  doc: OpenApiDocument,
  path: string,
  method: string,
  status: number,
  contentType = "application/json",
): JsonSchema {
  const schema = at(
    doc,
    "paths",
    path,
    method,
    "responses",
    String(status),
    "content",
    contentType,
    "schema",
  );
  if (typeof schema !== "object" || schema === null)
    throw new Error(`${method} ${path} ${status}: no schema`);
  return schema as JsonSchema;
}

/** A schema with its `$ref` (if it is one) followed within the document. */
export function resolved(doc: OpenApiDocument, schema: unknown): JsonSchema {
  const ref = at(schema, "$ref");
  return (typeof ref === "string" ? resolvePointer(doc, ref) : schema) as JsonSchema;
}

/** The frames of a server-sent events text: each one's `event` name and `data` parsed as JSON. */
export function sseFrames(text: string): { event?: string; data?: unknown }[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const lines = frame.split("\n");
      const field = (name: string) =>
        lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      const data = field("data");
      return { event: field("event"), data: data === undefined ? undefined : JSON.parse(data) };
    });
}
