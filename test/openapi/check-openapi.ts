/** A JSON object, or an array, as the checker walks it. */
type JsonNode = Record<string, unknown>;

const isNode = (value: unknown): value is JsonNode => typeof value === "object" && value !== null;

/** The value as an object to read fields of; `{}` when it is not one. */
const node = (value: unknown): JsonNode => (isNode(value) ? value : {});

/** The value as a list; `[]` when it is not one. */
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];

/** A focused structural check of an OpenAPI 3.1 document: returns every problem found, or none. */
export function openApiProblems(doc: unknown): string[] {
  const problems: string[] = [];
  const problem = (message: string) => problems.push(message);
  const root = node(doc);
  const info = node(root.info);
  if (typeof root.openapi !== "string" || !/^3\.1\.\d+$/.test(root.openapi)) problem("openapi is not 3.1.x");
  if (typeof info.title !== "string" || typeof info.version !== "string")
    problem("info needs title and version");
  if (typeof root.paths !== "object" || Object.keys(root.paths ?? {}).length === 0) problem("no paths");
  const schemes = node(node(root.components).securitySchemes);
  const tags = new Set(list(root.tags).map((tag) => node(tag).name));
  const operationIds = new Set<unknown>();
  for (const [path, item] of Object.entries(node(root.paths))) {
    if (!path.startsWith("/")) problem(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const [method, value] of Object.entries(node(item))) {
      const operation = node(value);
      const where = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) {
        problem(`${where}: not an HTTP method`);
        continue;
      }
      if (!operation.operationId || operationIds.has(operation.operationId))
        problem(`${where}: operationId missing or repeated`);
      operationIds.add(operation.operationId);
      for (const tag of list(operation.tags)) if (!tags.has(tag)) problem(`${where}: undeclared tag ${tag}`);
      const responses = Object.entries(node(operation.responses));
      if (responses.length === 0) problem(`${where}: no responses`);
      for (const [status, response] of responses) {
        if (!/^[1-5]\d\d$|^default$/.test(status)) problem(`${where}: bad status ${status}`);
        if (!node(response).$ref && typeof node(response).description !== "string")
          problem(`${where} ${status}: response without description`);
      }
      for (const requirement of list(operation.security ?? root.security))
        for (const name of Object.keys(node(requirement)))
          if (!schemes[name]) problem(`${where}: unknown security scheme ${name}`);
      const parameters = list(operation.parameters).map(node);
      for (const parameter of parameters) {
        if (
          !["path", "query", "header", "cookie"].includes(String(parameter.in)) ||
          typeof parameter.name !== "string"
        )
          problem(`${where}: bad parameter ${JSON.stringify(parameter)}`);
        if (!parameter.schema && !parameter.content)
          problem(`${where}: parameter ${parameter.name} has no schema`);
      }
      const inPath = parameters.filter((parameter) => parameter.in === "path");
      for (const name of templated)
        if (!inPath.some((parameter) => parameter.name === name && parameter.required === true))
          problem(`${where}: path parameter ${name} not declared as required`);
      for (const parameter of inPath)
        if (!templated.includes(String(parameter.name)))
          problem(`${where}: path parameter ${parameter.name} not in path`);
      if (operation.requestBody && Object.keys(node(node(operation.requestBody).content)).length === 0)
        problem(`${where}: request body without content`);
    }
  }
  walk(doc, "#", (value, pointer) => {
    if (typeof value.$ref === "string" && resolvePointer(doc, value.$ref) === undefined)
      problem(`${pointer}: $ref ${value.$ref} does not resolve`);
    const type = value.type;
    if (pointer.includes("schema") && typeof type === "string" && !TYPES.includes(type))
      problem(`${pointer}: bad JSON Schema type ${type}`);
  });
  return problems;
}

function walk(value: unknown, pointer: string, visit: (value: JsonNode, pointer: string) => void): void {
  if (!isNode(value)) return;
  if (!Array.isArray(value)) visit(value, pointer);
  for (const [key, item] of Object.entries(value)) walk(item, `${pointer}/${key}`, visit);
}

/** Resolves a local JSON pointer (`#/components/schemas/Error`), or undefined. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return at(
    doc,
    ...ref
      .slice(2)
      .split("/")
      .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~")),
  );
}

/** The value at a path of keys in plain JSON (`at(doc, "paths", "/healthz", "get")`), or undefined. */
export function at(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((current, key) => (isNode(current) ? current[key] : undefined), value);
}
