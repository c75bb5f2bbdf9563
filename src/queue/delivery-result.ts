/**
 * How a delivery attempt went: delivered, worth retrying, or never going to work. A platform post split
 * into parts says how many parts are out (`partsSent`, counted from the first): a retry resumes after them.
 * `retryAt` (ms since the epoch) is the platform's own word on when to try again (a 429's retry_after):
 * the next attempt is then, never earlier, and not held to the ledger's schedule.
 */
export type DeliveryResult =
  | { kind: "delivered" }
  | { kind: "retry"; reason: string; retryAt?: number; partsSent?: number }
  | { kind: "permanent"; reason: string; partsSent?: number };
