import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { openApiDocument } from "../../src/openapi/document";
import { SCALAR_SCRIPT_URL } from "../../src/routes/docs";
import { toolRegistry } from "../../src/tools/registry";
import { call } from "../support";

describe("GET /openapi.json", () => {
  it("serves the document without a token", async () => {
    const response = await call("GET", "/openapi.json");
    expect(response.status).toBe(200);
    expect(response.json).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });
});

describe("GET /docs", () => {
  it("serves Scalar's page for /openapi.json, with the static reference inside its mount point", async () => {
    const response = await call("GET", "/docs");
    expect(response.status).toBe(200);
    expect(response.text).toMatch(/^<!doctype html>/i);
    // Scalar's script comes from the Worker itself, so the page is interactive offline.
    expect(SCALAR_SCRIPT_URL).toMatch(/^\/docs\/scalar\.js\?v=1\.\d+\.\d+$/);
    expect(response.text).toContain(`<script src="${SCALAR_SCRIPT_URL}">`);
    expect(response.text).not.toMatch(/<script src="https?:/);
    expect(response.text).toContain('"url": "/openapi.json"');
    expect(response.text).toContain('<div id="app"><main class="static-reference"');
    for (const name of Object.keys(toolRegistry)) {
      expect(response.text).toContain(`<code>POST /v1/tools/${name}</code>`);
    }
  });
});

describe("GET /docs/scalar.js", () => {
  it("serves Scalar's standalone bundle, cacheable for good", async () => {
    const response = await exports.default.fetch(`http://switchboard.test${SCALAR_SCRIPT_URL}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    const script = await response.text();
    // The whole self-contained bundle (4.3 MB for 1.72), defining the global the page calls.
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain("createApiReference");
  });
});

describe("with an invalid configuration", () => {
  it.each(["/openapi.json", "/docs", "/docs/scalar.js"])(
    "%s answers 500 config_invalid like every other route",
    async (path) => {
      const ctx = createExecutionContext();
      const response = await app.fetch(
        new Request(`http://switchboard.test${path}`),
        { ...env, SWITCHBOARD_CONFIG: "{ nope" },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({ error: { code: "config_invalid" } });
    },
  );
});
