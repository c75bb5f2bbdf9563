import type { z } from "zod";

/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) as plain data. */
export type JsonSchema = { [key: string]: unknown };

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How a route authenticates: a bearer token, a bearer token or a grant token (SPEC §18), the channel's
 * HMAC signature, or not at all.
 */
export type RouteAuth = "bearer" | "bearerOrGrant" | "signature" | "none";

/** An error status a route can answer, each backed by a shared response in `components.responses`. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 500 | 503;

/** An answer of a route: its status, what it means, and either a zod schema or a JSON Schema. */
export interface ResponseDoc {
  status: number;
  description: string;
  contentType?: string;
  schema?: z.ZodType | JsonSchema;
  example?: unknown;
  /** Several named examples instead of one. */
  examples?: Record<string, { summary: string; value: unknown }>;
  /** Puts the schema in `components.schemas` under this name (a generated client names its type so). */
  name?: string;
  /**
   * A stream (`text/event-stream`): the schema of each event's data, under this component name. The
   * response's own schema is then the stream's text; OpenAPI 3.1 has no keyword for its items, so it is
   * linked as `x-item-schema` (3.2's `itemSchema`).
   */
  items?: { name: string; schema: z.ZodType };
}

/** A request header the route reads (beyond `Authorization`). */
export interface HeaderDoc {
  name: string;
  description: string;
}

/**
 * One route of the app, as the document describes it. `path` is in Hono's syntax (`/v1/runs/:runId`),
 * exactly as `app.routes` lists it, so the two lists can be compared.
 */
export interface RouteDoc {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  auth: RouteAuth;
  pathParams?: Record<string, string>;
  headers?: HeaderDoc[];
  /** The query parameters the route reads, by name, with their descriptions: all optional. */
  query?: Record<string, string>;
  /** The zod schema the route parses its query with: each parameter's type comes from it (its output). */
  querySchema?: z.ZodObject;
  /**
   * The zod schema the route validates its body with, a component name for it, and an example;
   * `jsonSchema` when its JSON Schema is generated elsewhere (a tool's, by src/tools/specs.ts).
   */
  body?: { name: string; schema: z.ZodType; example: unknown; jsonSchema?: JsonSchema };
  responses: ResponseDoc[];
  errors: ErrorStatus[];
  /** Errors in OpenClaw's `{ ok: false, error: { type, message } }` shape (`/tools/invoke`). */
  invokeErrors?: boolean;
  /** Documented once per registered tool (`/v1/tools/{name}`), not as one generic operation. */
  perTool?: boolean;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Partial<Record<Lowercase<HttpMethod>, OpenApiOperation>>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, JsonSchema>;
    securitySchemes: Record<string, JsonSchema>;
  };
}
