import { type FieldRow, type OperationOutline, outlineDocument } from "./outline";
import type { OpenApiDocument } from "./types";

/** Table cells stay on one line and keep their pipes. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n+/g, " ");

function fieldTable(title: string, rows: FieldRow[]): string[] {
  if (rows.length === 0) return [];
  return [
    `**${title}**`,
    "",
    "| Name | Type | Required | Description |",
    "|---|---|---|---|",
    ...rows.map(
      (row) =>
        `| \`${row.name}\` | ${cell(row.type)} | ${row.required ? "yes" : "no"} | ${cell(row.description)} |`,
    ),
    "",
  ];
}

function operationSection(operation: OperationOutline): string[] {
  const example =
    operation.bodyExample === undefined
      ? []
      : ["Example body:", "", "```json", JSON.stringify(operation.bodyExample, null, 2), "```", ""];
  return [
    `### ${operation.summary}`,
    "",
    `\`${operation.method} ${operation.path}\` · auth: ${operation.auth}`,
    "",
    ...(operation.description ? [operation.description, ""] : []),
    ...fieldTable("Path parameters", operation.pathParams),
    ...fieldTable("Headers", operation.headers),
    ...fieldTable("Query parameters", operation.query),
    ...fieldTable("Body", operation.body),
    ...example,
    ...fieldTable("Result", operation.result),
    "**Responses**",
    "",
    ...operation.responses.map((response) => `- \`${response.status}\` ${response.description}`),
    "",
  ];
}

/** docs/api.md: every route and tool with its parameters, rendered from the OpenAPI document. */
export function renderApiMarkdown(doc: OpenApiDocument): string {
  const tags = outlineDocument(doc);
  const index = tags.flatMap((tag) =>
    tag.operations.map(
      (operation) =>
        `| \`${operation.method}\` | \`${operation.path}\` | ${cell(operation.summary)} | ${tag.name} |`,
    ),
  );
  const lines = [
    `# ${doc.info.title} reference`,
    "",
    "<!-- Generated from the OpenAPI document (src/openapi/) by `npm run docs:api`; do not edit by hand.",
    "     test/openapi/api-docs.test.ts fails when this file is out of date. -->",
    "",
    `Version ${doc.info.version}. The same content as \`GET /openapi.json\` (OpenAPI ${doc.openapi}); an interactive reference is served at \`GET /docs\`.`,
    "",
    doc.info.description,
    "",
    "## Routes",
    "",
    "| Method | Path | Summary | Group |",
    "|---|---|---|---|",
    ...index,
    "",
    ...tags.flatMap((tag) => [
      `## ${tag.name}`,
      "",
      tag.description,
      "",
      ...tag.operations.flatMap(operationSection),
    ]),
  ];
  return `${lines.join("\n").trimEnd()}\n`;
}
