import type { JsonSchema, OpenApiDocument, OpenApiOperation } from "./types";

/** One parameter or body field, flattened for a table. */
export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface OperationOutline {
  method: string;
  path: string;
  summary: string;
  description: string;
  auth: string;
  pathParams: FieldRow[];
  headers: FieldRow[];
  query: FieldRow[];
  body: FieldRow[];
  bodyExample: unknown;
  /** The fields of the first JSON success (of its first variant, when it is a result or a failure). */
  result: FieldRow[];
  responses: { status: string; description: string }[];
}

export interface TagOutline {
  name: string;
  description: string;
  operations: OperationOutline[];
}

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Follows a local `$ref` (`#/components/…`) to what it names. */
function resolve(doc: OpenApiDocument, value: unknown): JsonSchema {
  if (!isObject(value) || typeof value.$ref !== "string") return isObject(value) ? value : {};
  const target = value.$ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), doc);
  return resolve(doc, target);
}

/** A short type: `string`, `"a" | "b"`, `number[]`, `string | null`. */
export function typeLabel(doc: OpenApiDocument, raw: unknown): string {
  const schema = resolve(doc, raw);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants))
    return [...new Set(variants.map((variant) => typeLabel(doc, variant)))].join(" | ");
  if (schema.type === "array") {
    const items = schema.items ? typeLabel(doc, schema.items) : "any";
    return items.includes(" | ") ? `(${items})[]` : `${items}[]`;
  }
  return typeof schema.type === "string" ? schema.type : "any";
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Limits worth a reader's attention: lengths, ranges, item counts, pattern, default. */
function constraints(schema: JsonSchema): string[] {
  const notes: string[] = [];
  const range = (low: unknown, high: unknown, unit: string) => {
    const lo = typeof low === "number" && Math.abs(low) < MAX_SAFE ? low : undefined;
    const hi = typeof high === "number" && Math.abs(high) < MAX_SAFE ? high : undefined;
    if (lo !== undefined && hi !== undefined) notes.push(`${unit}${lo}–${hi}`);
    else if (lo !== undefined) notes.push(`${unit}≥ ${lo}`);
    else if (hi !== undefined) notes.push(`${unit}≤ ${hi}`);
  };
  range(schema.minLength, schema.maxLength, "length ");
  range(schema.minimum, schema.maximum, "");
  range(schema.minItems, schema.maxItems, "items ");
  if (typeof schema.pattern === "string") notes.push(`pattern \`${schema.pattern}\``);
  if ("default" in schema) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes;
}

function describeField(schema: JsonSchema): string {
  const description = typeof schema.description === "string" ? schema.description : "";
  const notes = constraints(schema);
  return [description, notes.length > 0 ? `(${notes.join(", ")})` : ""].filter(Boolean).join(" ");
}

/** The fields of an object schema, nested objects and arrays of objects as `parent.child` rows. */
export function fieldRows(doc: OpenApiDocument, raw: unknown, prefix = "", depth = 0): FieldRow[] {
  const schema = resolve(doc, raw);
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).flatMap(([name, value]) => {
    const property = resolve(doc, value);
    const row = {
      name: `${prefix}${name}`,
      type: typeLabel(doc, property),
      required: required.has(name),
      description: describeField(property),
    };
    if (depth >= 2) return [row];
    const items = property.type === "array" ? resolve(doc, property.items) : undefined;
    const nested = items?.properties ? `${row.name}[].` : property.properties ? `${row.name}.` : undefined;
    const inner = items?.properties ? items : property;
    return nested ? [row, ...fieldRows(doc, inner, nested, depth + 1)] : [row];
  });
}

function resultRows(doc: OpenApiDocument, operation: OpenApiOperation): FieldRow[] {
  const success = Object.entries(operation.responses).find(([status]) => status.startsWith("2"));
  const schema = resolve(doc, resolve(doc, resolve(doc, success?.[1]).content)["application/json"]).schema;
  const variants = resolve(doc, schema).anyOf;
  return schema ? fieldRows(doc, Array.isArray(variants) ? variants[0] : schema) : [];
}

function authLabel(operation: OpenApiOperation): string {
  const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes("grantToken")) return "bearer token or grant token";
  if (schemes.includes("bearerAuth")) return "bearer token";
  if (schemes.includes("channelSignature")) return "channel signature (`X-Switchboard-Signature`)";
  return "none";
}

function outlineOperation(doc: OpenApiDocument, method: string, path: string, operation: OpenApiOperation) {
  const parameters = (operation.parameters ?? []).map((parameter) => resolve(doc, parameter));
  const rows = (where: string) =>
    parameters
      .filter((parameter) => parameter.in === where)
      .map((parameter) => ({
        name: String(parameter.name),
        type: typeLabel(doc, parameter.schema),
        required: parameter.required === true,
        description: typeof parameter.description === "string" ? parameter.description : "",
      }));
  const media = resolve(doc, resolve(doc, operation.requestBody).content);
  const json = resolve(doc, media["application/json"]);
  return {
    method: method.toUpperCase(),
    path,
    summary: operation.summary,
    description: operation.description ?? "",
    auth: authLabel(operation),
    pathParams: rows("path"),
    headers: rows("header"),
    query: rows("query"),
    body: json.schema ? fieldRows(doc, json.schema) : [],
    bodyExample: json.example,
    result: resultRows(doc, operation),
    responses: Object.entries(operation.responses).map(([status, value]) => ({
      status,
      description: String(resolve(doc, value).description ?? ""),
    })),
  };
}

/** The document's operations grouped by tag, in the tags' order then the document's. */
export function outlineDocument(doc: OpenApiDocument): TagOutline[] {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      tag: operation.tags[0] ?? "",
      outline: outlineOperation(doc, method, path, operation),
    })),
  );
  return doc.tags.map((tag) => ({
    ...tag,
    operations: operations.filter((entry) => entry.tag === tag.name).map((entry) => entry.outline),
  }));
}
