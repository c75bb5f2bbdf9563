import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, BASE_URL } from "../support";

/** A request to the Worker as a plain HTTP client sends it, answered with its headers. */
function request(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  return exports.default.fetch(`${BASE_URL}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe("a 401 says which scheme it wants (RFC 9110 §11.6.1, RFC 6750)", () => {
  const routes: [string, string, unknown][] = [
    ["POST", "/tools/invoke", { tool: "sessions_list" }],
    ["POST", "/v1/tools/sessions_list", {}],
    ["GET", "/v1/deliveries", undefined],
    ["POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
    ["GET", "/console/fragments/sessions", undefined],
  ];

  it.each(routes)(
    "%s %s, with no token or a bad one: WWW-Authenticate: Bearer",
    async (method, path, body) => {
      for (const headers of [{}, bearer("not-a-token")]) {
        const response = await request(method, path, headers, body);
        expect(response.status).toBe(401);
        expect(response.headers.get("WWW-Authenticate")).toBe("Bearer");
      }
    },
  );

  it("only a 401 carries it: not a 400, 403 or 404", async () => {
    const refused = [
      await request("POST", "/tools/invoke", bearer(ADMIN), { tool: "sessions_list" }),
      await request("GET", "/v1/sessions/agent%3Aops%3Amain", bearer(AGENT_TOKENS.main)),
      await request("GET", "/no/such/route"),
    ];
    expect(refused.map((response) => response.status)).toEqual([400, 403, 404]);
    for (const response of refused) expect(response.headers.get("WWW-Authenticate")).toBeNull();
  });
});

describe("/tools/invoke takes only POST, as OpenClaw's does", () => {
  it.each(["GET", "PUT", "PATCH", "DELETE"])("%s is 405 with Allow: POST, token or not", async (method) => {
    for (const headers of [{}, bearer(AGENT_TOKENS.main)]) {
      const response = await request(method, "/tools/invoke", headers);
      expect(response.status).toBe(405);
      expect(response.headers.get("Allow")).toBe("POST");
      expect(await response.json()).toEqual({
        ok: false,
        error: { type: "method_not_allowed", message: `${method} /tools/invoke: use POST` },
      });
    }
  });
});
