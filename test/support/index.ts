/**
 * The test support kit, for every test folder: import from "../support". Workerd-side only; the Node side
 * (fake-services-server.ts, the vitest globalSetup, and test-config.ts, read by vitest.config.ts) is not
 * re-exported here, nor is mcp.ts (it loads the MCP SDK: import "../support/mcp" where a test needs it).
 */
export * from "./auth";
export * from "./channels";
export * from "./config";
export * from "./counting-d1";
export * from "./drive";
export * from "./fake-services";
export * from "./faults";
export * from "./grants";
export * from "./http";
export * from "./ids";
export * from "./lists";
export * from "./runs";
export * from "./secrets";
export * from "./sessions";
export * from "./shards";
export * from "./streams";
export * from "./subagents";
export * from "./tools";
export * from "./wire";
