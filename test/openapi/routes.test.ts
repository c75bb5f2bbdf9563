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
    // Scalar's script comes from this origin (a static asset), so the page is interactive offline.
    expect(SCALAR_SCRIPT_URL).toBe("/docs/scalar.js");
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
  // Served from wrangler.toml's [assets] before the Worker is asked (what `npm run test:browser` loads).
  it("is not the Worker's: Scalar's 4.35 MB bundle is a static asset, outside the Worker bundle", async () => {
    const response = await exports.default.fetch(`http://switchboard.test${SCALAR_SCRIPT_URL}`);
    expect(response.status).toBe(404);
  });
});

describe("with an invalid configuration", () => {
  it.each(["/openapi.json", "/docs"])(
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
