// What `npm start` serves with (scripts/start.mjs): each credential that .dev.vars sets, and the local
// default for each one it leaves out, so a .dev.vars holding only a model key (OPENAI_API_KEY) keeps the
// local tokens instead of leaving the Worker with none (every call 401). The configuration is the bundled
// config/local.json unless .dev.vars sets SWITCHBOARD_CONFIG.
// Pure (no files, no process), so test/scripts/start-credentials.test.ts runs it inside workerd.

/** Local-only credentials, for this machine only: never deploy these (README "Deploy"). */
export const LOCAL_CREDENTIALS = {
  SWITCHBOARD_ADMIN_TOKEN: "local-admin-token",
  SWITCHBOARD_AGENT_TOKENS: JSON.stringify({
    main: "local-main-token",
    research: "local-research-token",
    ops: "local-ops-token",
  }),
  SWITCHBOARD_SIGNING_KEY: "local-signing-key-not-for-production",
};

// An empty value (`SWITCHBOARD_ADMIN_TOKEN=`) sets nothing: the Worker would refuse every token.
const isSet = (value) => typeof value === "string" && value.trim() !== "";

/**
 * The Worker's vars: everything .dev.vars sets (`devVars`: its parsed entries, undefined without a file),
 * then the local default of each credential it leaves out. `defaulted` names those credentials, in
 * LOCAL_CREDENTIALS' order.
 */
export function startVars(devVars) {
  const file = devVars ?? {};
  const defaulted = Object.keys(LOCAL_CREDENTIALS).filter((name) => !isSet(file[name]));
  const vars = { ...file };
  for (const name of defaulted) vars[name] = LOCAL_CREDENTIALS[name];
  return { vars, defaulted, configFromDevVars: isSet(file.SWITCHBOARD_CONFIG) };
}

/**
 * What the start banner says of the configuration: where it comes from (the Worker's `/healthz`), and the
 * secrets it names that neither .dev.vars nor the local defaults set, by name (SPEC §20).
 */
export function configurationLines(health) {
  const source =
    health.config === "SWITCHBOARD_CONFIG"
      ? "SWITCHBOARD_CONFIG from your .dev.vars (over config/local.json)"
      : `${health.config} (bundled; edit it and restart, check it with npm run config:check)`;
  if (health.ok === false) return [`Configuration: ${source}`, `  INVALID: ${health.error?.message ?? "?"}`];
  const missing = health.missingSecrets ?? [];
  return [
    `Configuration: ${source}`,
    ...(missing.length > 0 ? [`  missing secrets (add them to .dev.vars): ${missing.join(", ")}`] : []),
  ];
}

/** What the start banner says of the credentials: where each comes from, and the local ones in use. */
export function credentialLines({ defaulted }, hasDevVars) {
  const fromFile = Object.keys(LOCAL_CREDENTIALS).filter((name) => !defaulted.includes(name));
  if (defaulted.length === 0) return ["Credentials: from your .dev.vars"];
  const lines = [
    fromFile.length === 0
      ? `Local credentials (for this machine only${hasDevVars ? "; your .dev.vars sets none" : ""}):`
      : `Credentials: ${fromFile.join(", ")} from your .dev.vars; local defaults (for this machine only) for the rest:`,
  ];
  if (defaulted.includes("SWITCHBOARD_ADMIN_TOKEN"))
    lines.push(`  operator token   ${LOCAL_CREDENTIALS.SWITCHBOARD_ADMIN_TOKEN}`);
  if (defaulted.includes("SWITCHBOARD_AGENT_TOKENS")) {
    const tokens = Object.entries(JSON.parse(LOCAL_CREDENTIALS.SWITCHBOARD_AGENT_TOKENS));
    lines.push(`  agent tokens     ${tokens.map(([agent, token]) => `${agent}=${token}`).join("  ")}`);
  }
  if (defaulted.includes("SWITCHBOARD_SIGNING_KEY"))
    lines.push("  run tokens       signed with the local signing key");
  return lines;
}
