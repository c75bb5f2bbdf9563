#!/usr/bin/env node
// The bench's server process (started by server.mjs): `node serve.mjs '<options JSON>'`. With
// `{ bare: true, port }`, a bare Miniflare Worker that answers every request with "ok" and touches no
// binding: the floor of a local request, the baseline `npm start`'s /healthz is held to. Otherwise the
// bench's Worker through the same local server as `npm start` (scripts/local-server.mjs).
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { serveLocally } from "../local-server.mjs";

const options = JSON.parse(process.argv[2]);
const HOST = "127.0.0.1";

async function serveBare(port) {
  // The options as the local server gives them (Miniflare 4's shape, converted).
  const miniflare = new Miniflare(
    convertV4MiniflareOptions({
      host: HOST,
      port,
      cf: false,
      workers: [
        {
          name: "bare",
          modules: true,
          script: 'export default { fetch() { return new Response("ok"); } };',
          compatibilityDate: "2026-11-01",
        },
      ],
    }),
  );
  await miniflare.ready;
  return miniflare;
}

const server = options.bare
  ? await serveBare(options.port)
  : await serveLocally({ ...options, host: HOST, quiet: true });
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => server.dispose().then(() => process.exit(0)));
