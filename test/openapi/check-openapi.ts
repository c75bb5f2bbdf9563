/** A focused structural check of an OpenAPI 3.1 document: returns every problem found, or none. */
export function openApiProblems(doc: any): string[] {
  const problems: string[] = [];
  const problem = (message: string) => problems.push(message);
  if (typeof doc?.openapi !== "string" || !/^3\.1\.\d+$/.test(doc.openapi)) problem("openapi is not 3.1.x");
  if (typeof doc?.info?.title !== "string" || typeof doc?.info?.version !== "string")
    problem("info needs title and version");
  if (typeof doc?.paths !== "object" || Object.keys(doc.paths ?? {}).length === 0) problem("no paths");
  const schemes = doc?.components?.securitySchemes ?? {};
  const tags = new Set((doc?.tags ?? []).map((tag: any) => tag.name));
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc?.paths ?? {})) {
    if (!path.startsWith("/")) problem(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const [method, operation] of Object.entries<any>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!["get", "put", "post", "delete", "options", "head", "patch", "trace"].includes(method)) {
        problem(`${where}: not an HTTP method`);
        continue;
      }
      if (!operation.operationId || operationIds.has(operation.operationId))
        problem(`${where}: operationId missing or repeated`);
      operationIds.add(operation.operationId);
      for (const tag of operation.tags ?? []) if (!tags.has(tag)) problem(`${where}: undeclared tag ${tag}`);
      const responses = Object.entries<any>(operation.responses ?? {});
      if (responses.length === 0) problem(`${where}: no responses`);
      for (const [status, response] of responses) {
        if (!/^[1-5]\d\d$|^default$/.test(status)) problem(`${where}: bad status ${status}`);
        if (!response.$ref && typeof response.description !== "string")
          problem(`${where} ${status}: response without description`);
      }
      for (const requirement of operation.security ?? doc.security ?? [])
        for (const name of Object.keys(requirement))
          if (!schemes[name]) problem(`${where}: unknown security scheme ${name}`);
      const parameters: any[] = operation.parameters ?? [];
      for (const parameter of parameters) {
        if (
          !["path", "query", "header", "cookie"].includes(parameter.in) ||
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
        if (!templated.includes(parameter.name))
          problem(`${where}: path parameter ${parameter.name} not in path`);
      if (operation.requestBody && Object.keys(operation.requestBody.content ?? {}).length === 0)
        problem(`${where}: request body without content`);
    }
  }
  walk(doc, "#", (value, pointer) => {
    if (typeof value.$ref === "string" && resolvePointer(doc, value.$ref) === undefined)
      problem(`${pointer}: $ref ${value.$ref} does not resolve`);
    const type = value.type;
    const types = ["string", "number", "integer", "boolean", "object", "array", "null"];
    if (pointer.includes("schema") && typeof type === "string" && !types.includes(type))
      problem(`${pointer}: bad JSON Schema type ${type}`);
  });
  return problems;
}

function walk(value: unknown, pointer: string, visit: (value: any, pointer: string) => void): void {
  if (typeof value !== "object" || value === null) return;
  if (!Array.isArray(value)) visit(value, pointer);
  for (const [key, item] of Object.entries(value)) walk(item, `${pointer}/${key}`, visit);
}

/** Resolves a local JSON pointer (`#/components/schemas/Error`), or undefined. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<any>((node, key) => (node && typeof node === "object" ? node[key] : undefined), doc);
}
