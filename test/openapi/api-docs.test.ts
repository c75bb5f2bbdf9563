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
