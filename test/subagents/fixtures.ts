/**
 * Moved to test/support/subagents.ts (issue 29 item 3). Kept only for test/client/cli.test.ts, which the
 * CLI's move re-homes: import "../support" instead, and delete this file once nothing imports it.
 */
export * from "../support/subagents";
