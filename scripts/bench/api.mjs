// JSON calls to the Worker, and the tool calls the scenarios make.

/** One JSON request; resolves to { status, json }. */
export async function api(base, method, path, token, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => undefined);
  return { status: response.status, json };
}

/** A tool call through `POST /v1/tools/{name}`; throws unless it answers 200. */
export async function tool(base, token, name, args) {
  const result = await api(base, "POST", `/v1/tools/${name}`, token, args);
  if (result.status !== 200)
    throw new Error(`${name} answered ${result.status}: ${JSON.stringify(result.json)}`);
  return result.json;
}

/** A request that counts as ok only with a 2xx status (for the load client). */
export const ok = (promise) =>
  promise.then(async (response) => {
    await response.arrayBuffer();
    return response.ok;
  });

/** The list cursor the API takes: base64url JSON of { u, t } (src/tools/list-cursor.ts). */
export const encodeCursor = (cursor) =>
  Buffer.from(JSON.stringify({ u: cursor.updatedAt, t: cursor.tiebreak })).toString("base64url");
