import type { z } from "zod";
import { BOOKMARK_HEADER } from "../index-db/replicas";
import { errorResponse, errorResponseName } from "./components";
import { hoistDefs, isZodSchema, zodJsonSchema } from "./json-schema";
import { pathParamNames } from "./route-table";
import type {
  HeaderDoc,
  JsonSchema,
  OpenApiDocument,
  OpenApiOperation,
  ResponseDoc,
  RouteAuth,
  RouteDoc,
} from "./types";

type Components = OpenApiDocument["components"];

const security: Record<RouteAuth, Record<string, string[]>[]> = {
  bearer: [{ bearerAuth: [] }],
  bearerOrGrant: [{ bearerAuth: [] }, { grantToken: [] }],
  signature: [{ channelSignature: [] }],
  none: [],
};

/** Every authenticated route reads the caller's D1 bookmarks and answers the newest (README "Read replicas"). */
const bookmarkParameter: HeaderDoc = {
  name: BOOKMARK_HEADER,
  description:
    "The `Switchboard-Bookmark` of the caller's previous answer, sent back as it came (`<shard>=<bookmark>`, comma separated): this request's index reads start at least there, so it sees what the caller saw and wrote. Absent: the nearest replica. Malformed: 400 naming the header.",
};

const bookmarkResponseHeader = {
  description:
    "Where the caller's next request must start to see what this one saw and wrote: per index shard a D1 bookmark, or `first-primary` after a session object may have written that shard. Send it back with the next request.",
  schema: { type: "string" },
};

function parameters(route: RouteDoc): JsonSchema[] {
  const inPath = pathParamNames(route.path).map((name) => ({
    name,
    in: "path",
    required: true,
    description: route.pathParams?.[name] ?? "",
    schema: { type: "string" },
  }));
  const bookmark = route.auth === "none" ? [] : [bookmarkParameter];
  const headers = [...(route.headers ?? []), ...bookmark].map((header) => ({
    name: header.name,
    in: "header",
    required: false,
    description: header.description,
    schema: { type: "string" },
  }));
  const query = Object.entries(route.query ?? {}).map(([name, description]) => ({
    name,
    in: "query",
    required: false,
    description,
    schema: queryParamSchema(route, name),
  }));
  return [...inPath, ...headers, ...query];
}

/** A query parameter's type, from the route's query schema (what the route makes of the text). */
function queryParamSchema(route: RouteDoc, name: string): JsonSchema {
  const field = route.querySchema?.shape[name];
  if (!field) return { type: "string" };
  const { description: _, ...schema } = zodJsonSchema(field as z.ZodType, "output");
  return schema;
}

function requestBody(route: RouteDoc, components: Components): JsonSchema | undefined {
  if (!route.body) return undefined;
  const { name, schema, jsonSchema, example } = route.body;
  const json = hoistDefs(name, jsonSchema ?? zodJsonSchema(schema, "input"), components.schemas);
  components.schemas[name] = json;
  return {
    required: Array.isArray(json.required) && json.required.length > 0,
    content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` }, example } },
  };
}

/** A zod schema as a named component (its reference), or inline; a JSON Schema as it is. */
function schemaOf(schema: ResponseDoc["schema"], components: Components, name?: string) {
  if (schema === undefined || !isZodSchema(schema)) return schema;
  const json = zodJsonSchema(schema, "output");
  if (!name) return json;
  components.schemas[name] = hoistDefs(name, json, components.schemas);
  return { $ref: `#/components/schemas/${name}` };
}

function response(doc: ResponseDoc, components: Components): JsonSchema {
  const schema = schemaOf(doc.schema, components, doc.name);
  const items = doc.items && schemaOf(doc.items.schema, components, doc.items.name);
  const media = {
    ...(schema ? { schema } : {}),
    ...(items ? { "x-item-schema": items } : {}),
    ...(doc.example !== undefined ? { example: doc.example } : {}),
    ...(doc.examples ? { examples: doc.examples } : {}),
  };
  const hasContent = Object.keys(media).length > 0;
  return {
    description: doc.description,
    ...(hasContent ? { content: { [doc.contentType ?? "application/json"]: media } } : {}),
  };
}

/** One route's OpenAPI operation; the shared schemas and error responses it uses go into `components`. */
export function buildOperation(route: RouteDoc, components: Components): OpenApiOperation {
  const responses: Record<string, JsonSchema> = {};
  for (const doc of route.responses) {
    const answer = response(doc, components);
    responses[String(doc.status)] =
      route.auth === "none" ? answer : { ...answer, headers: { [BOOKMARK_HEADER]: bookmarkResponseHeader } };
  }
  for (const status of route.errors) {
    const name = errorResponseName(status, route.invokeErrors);
    components.responses[name] ??= errorResponse(status, route.invokeErrors ?? false);
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  const params = parameters(route);
  const body = requestBody(route, components);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: security[route.auth],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}
