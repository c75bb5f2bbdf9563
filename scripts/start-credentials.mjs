// What `npm start` serves with (scripts/start.mjs): each credential that .dev.vars sets, and the local
// default for each one it leaves out, so a .dev.vars holding only a model key (OPENAI_API_KEY) and a
// SWITCHBOARD_CONFIG keeps the local tokens instead of leaving the Worker with none (every call 401).
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
 * The Worker's vars: the demo configuration, then everything .dev.vars sets (`devVars`: its parsed
 * entries, undefined without a file), then the local default of each credential it leaves out.
 * `defaulted` names those credentials, in LOCAL_CREDENTIALS' order.
 */
export function startVars(devVars, demoConfig) {
  const file = devVars ?? {};
  const defaulted = Object.keys(LOCAL_CREDENTIALS).filter((name) => !isSet(file[name]));
  const vars = { SWITCHBOARD_CONFIG: JSON.stringify(demoConfig), ...file };
  for (const name of defaulted) vars[name] = LOCAL_CREDENTIALS[name];
  return { vars, defaulted, configFromDevVars: isSet(file.SWITCHBOARD_CONFIG) };
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
