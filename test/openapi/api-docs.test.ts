import { expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document";
import { renderApiMarkdown } from "../../src/openapi/markdown";
import { toolRegistry } from "../../src/tools/registry";

// docs/api.md is this rendering, committed. To refresh it after changing a route, a tool or a schema:
// `npm run docs:api` (this file with vitest's --update), then commit docs/api.md.
it("docs/api.md is current (refresh it with `npm run docs:api`)", async () => {
  const markdown = renderApiMarkdown(openApiDocument());
  for (const name of Object.keys(toolRegistry)) expect(markdown).toContain(`### ${name}\n`);
  await expect(markdown, "docs/api.md is out of date: run `npm run docs:api`").toMatchFileSnapshot(
    "../../docs/api.md",
  );
});

// docs/openapi.json is the served /openapi.json, committed: clients generate from it without a running
// server, and `npm run typecheck` compiles an openapi-typescript + openapi-fetch client of it
// (scripts/openapi-client-check.mjs). Refreshed with docs/api.md by `npm run docs:api`.
it("docs/openapi.json is current (refresh it with `npm run docs:api`)", async () => {
  await expect(
    `${JSON.stringify(openApiDocument(), null, 2)}\n`,
    "docs/openapi.json is out of date: run `npm run docs:api`",
  ).toMatchFileSnapshot("../../docs/openapi.json");
});
