import { type FieldRow, type OperationOutline, outlineDocument } from "./outline";
import type { OpenApiDocument } from "./types";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Escaped text with Markdown's `code` spans as <code> and blank lines as paragraph breaks. */
const prose = (text: string) =>
  escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\n\n+/g, "</p><p>");

// Scoped to the static reference, which Scalar removes (style included) when it mounts.
const STYLE =
  "<style>.static-reference{max-width:960px;margin:0 auto;padding:1rem;font-family:system-ui,sans-serif}" +
  ".static-reference table{border-collapse:collapse}.static-reference th,.static-reference td" +
  "{text-align:left;vertical-align:top;padding:.2rem .6rem;border-bottom:1px solid #ddd}</style>";

function fieldTable(title: string, rows: FieldRow[]): string {
  if (rows.length === 0) return "";
  const body = rows
    .map(
      (row) =>
        `<tr><td><code>${escapeHtml(row.name)}</code></td><td>${escapeHtml(row.type)}</td><td>${row.required ? "yes" : "no"}</td><td>${prose(row.description)}</td></tr>`,
    )
    .join("");
  return `<h4>${title}</h4><table><tr><th>Name</th><th>Type</th><th>Required</th><th>Description</th></tr>${body}</table>`;
}

function operationSection(operation: OperationOutline): string {
  const responses = operation.responses
    .map((response) => `<li><code>${response.status}</code> ${prose(response.description)}</li>`)
    .join("");
  return [
    `<section class="operation"><h3>${escapeHtml(operation.summary)}</h3>`,
    `<p><code>${operation.method} ${escapeHtml(operation.path)}</code> · auth: ${prose(operation.auth)}</p>`,
    operation.description ? `<p>${prose(operation.description)}</p>` : "",
    fieldTable("Path parameters", operation.pathParams),
    fieldTable("Headers", operation.headers),
    fieldTable("Query parameters", operation.query),
    fieldTable("Body", operation.body),
    `<h4>Responses</h4><ul>${responses}</ul></section>`,
  ].join("");
}

/**
 * The reference as static HTML, from the same outline as docs/api.md: what /docs shows until (or
 * unless) Scalar's script loads and replaces it with the interactive reference.
 */
export function renderStaticReference(doc: OpenApiDocument): string {
  const tags = outlineDocument(doc)
    .map(
      (tag) =>
        `<h2>${escapeHtml(tag.name)}</h2><p>${prose(tag.description)}</p>${tag.operations.map(operationSection).join("")}`,
    )
    .join("");
  return [
    `<main class="static-reference">${STYLE}`,
    `<h1>${escapeHtml(doc.info.title)} ${escapeHtml(doc.info.version)}</h1>`,
    '<p>Static reference, shown until the interactive one (Scalar, served from <a href="/docs/scalar.js">/docs/scalar.js</a>) loads or when JavaScript is off; the machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>',
    tags,
    "</main>",
  ].join("");
}
