#!/usr/bin/env node
// Part of `npm run typecheck`: a third-party typed client of docs/openapi.json (the served /openapi.json,
// kept current by test/openapi/api-docs.test.ts) must compile without casts. Generates the types with
// openapi-typescript into node_modules/.cache, then type-checks a small openapi-fetch client against them.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";

// openapi-typescript runs on TypeScript 5's compiler API; the project's own `typescript` is 7 (native,
// no such API), so its imports get the `typescript-5` devDependency instead.
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "typescript" && context.parentURL?.includes("/node_modules/openapi-typescript/"))
      return next("typescript-5", context);
    return next(specifier, context);
  },
});
const { default: openapiTS, astToString } = await import("openapi-typescript");

const ROOT = path.join(import.meta.dirname, "..");
const DIR = path.join(ROOT, "node_modules", ".cache", "openapi-client-check");

// What a client writes: no casts, no `any`; each line fails to compile if the document loses the type.
const CLIENT = `import createClient from "openapi-fetch";
import type { components, paths } from "./api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8787" });

export async function firstKey(): Promise<string | undefined> {
  const { data } = await client.POST("/v1/tools/sessions_list", { body: { limit: 10 } });
  const count: number | undefined = data?.count;
  const row: components["schemas"]["Session"] | undefined = data?.sessions[0];
  // @ts-expect-error a session row has no such field
  data?.sessions[0]?.nope;
  return count ? row?.key : data?.sessions[0]?.key;
}

export async function historyAndRun(key: string, runId: string) {
  const history = await client.GET("/v1/sessions/{key}/history", {
    params: { path: { key }, query: { limit: 5, includeTools: true } },
  });
  const page = history.data;
  const total: number | undefined = page?.totalMessages;
  const sent = await client.POST("/v1/sessions/{key}/messages", { params: { path: { key } }, body: { text: "hi" } });
  // 202 JSON, or (with stream: true) the run's event stream as text.
  const queued: string | undefined = typeof sent.data === "string" ? undefined : sent.data?.runId;
  const run = await client.GET("/v1/runs/{runId}", { params: { path: { runId } } });
  const status: "queued" | "running" | "ok" | "error" | "timeout" | "killed" | undefined = run.data?.status;
  // @ts-expect-error history's limit is an integer, not a string
  await client.GET("/v1/sessions/{key}/history", { params: { path: { key }, query: { limit: "5" } } });
  return { total, queued, status };
}
`;

const doc = JSON.parse(readFileSync(path.join(ROOT, "docs", "openapi.json"), "utf8"));
rmSync(DIR, { recursive: true, force: true });
mkdirSync(DIR, { recursive: true });
writeFileSync(path.join(DIR, "api.d.ts"), astToString(await openapiTS(doc)));
writeFileSync(path.join(DIR, "client.ts"), CLIENT);
writeFileSync(
  path.join(DIR, "tsconfig.json"),
  JSON.stringify({
    compilerOptions: {
      target: "es2022",
      lib: ["es2022", "dom"],
      module: "es2022",
      moduleResolution: "bundler",
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
    files: ["client.ts"],
  }),
);
const tsc = spawnSync(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", DIR], { stdio: "inherit" });
if (tsc.status !== 0) {
  console.error(`openapi-client-check: a typed client of docs/openapi.json does not compile (${DIR})`);
  process.exit(1);
}
console.log("openapi-client-check: an openapi-fetch client of docs/openapi.json compiles without casts");
