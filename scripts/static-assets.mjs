#!/usr/bin/env node
// Fills static/, the directory Workers Static Assets serves (wrangler.toml `[assets]`), from node_modules:
// Scalar's browser bundle for /docs at static/docs/scalar.js. Run by `npm install` and `npm ci`
// (postinstall), so the tests, `npm start`, `wrangler dev` and a deploy find it, always the installed
// version (wrangler refuses to start without the directory). static/ is generated: never committed.
import { copyFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const target = path.join(root, "static", "docs", "scalar.js");
mkdirSync(path.dirname(target), { recursive: true });
copyFileSync(path.join(root, "node_modules/@scalar/api-reference/dist/browser/standalone.js"), target);
