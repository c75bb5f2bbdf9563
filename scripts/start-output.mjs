// What `npm start` (scripts/start.mjs) says of its steps, in a line each instead of wrangler's and
// Miniflare's own output. Pure, so test/scripts/start-output.test.ts runs it inside workerd.

/**
 * One line for a database's migrations, from `wrangler d1 migrations apply`'s output (which draws the
 * migration table once before and once after each migration).
 */
export function migrationLine(binding, wranglerOutput) {
  const applied = /About to apply (\d+) migration/.exec(wranglerOutput)?.[1];
  return `✓ D1 ${binding}: ${applied ? `${applied} migration(s) applied` : "migrations up to date"}`;
}

/**
 * Why start failed and what to do, in lines for stderr. A taken port gets only ours: Miniflare's
 * message advises a `--port` flag that npm start does not take.
 */
export function failureLines(step, error, { host, port }) {
  if (error?.code === "ERR_ADDRESS_IN_USE" || /address already in use/i.test(error?.message ?? ""))
    return [
      `✗ ${host}:${port} is in use (an \`npm start\` already running?): stop it, or serve another port: PORT=8799 npm start`,
    ];
  return [
    `✗ ${step} failed: ${error?.message ?? error}`,
    "Run `npm ci` (it installs wrangler, workerd and Node 22), then `npm start` again.",
  ];
}
