// The bench's Worker (scripts/bench/wrangler.toml, started by server.mjs): the real Worker, unchanged,
// plus the baseline routes under /bench/* and a session object with the baselines it needs. None of it
// ships: `npm start`, the tests and `npm run deploy` use src/index.ts.
import { Hono } from "hono";
import { AgentObject as ServiceAgentObject } from "../../src/agent-object/agent-object";
import type { AppEnv } from "../../src/app-env";
import worker from "../../src/index";
import { countAlarm, countInvocation, countingEnv } from "./counting";
import { benchRoutes } from "./routes";

export { BenchSessionObject } from "./session-object";

/** The agent object with its bindings counted and delayed (counting.ts), as the session objects' are. */
export class AgentObject extends ServiceAgentObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, countingEnv(env));
  }

  // Each alarm is a billed Durable Object request (costs.mjs).
  override async alarm(): Promise<void> {
    countAlarm();
    return super.alarm();
  }
}

// /bench/* first, as its own sub-app, so the OpenAPI route table (the public API) never lists it; every
// other request goes to the real Worker as it is, middleware, errors and 404s included, with its bindings
// counted (counting.ts).
const benchApp = new Hono<AppEnv>().route("/bench", benchRoutes).all("*", (c) => {
  countInvocation("request");
  return worker.fetch(c.req.raw, countingEnv(c.env), c.executionCtx);
});

/**
 * Target keys of the accept-path rows (messaging.mjs): their sends are taken off the Queue here and never
 * delivered, so no run follows them and the row times the accept path alone. Everything else goes to the
 * real consumer.
 */
const ACCEPT_ONLY_MARK = ":accept-only-";

const isAcceptOnly = (body: unknown) =>
  typeof body === "object" &&
  body !== null &&
  "targetKey" in body &&
  String(body.targetKey).includes(ACCEPT_ONLY_MARK);

export default {
  fetch: benchApp.fetch,
  async queue(batch, env) {
    countInvocation("batch");
    const dropped = batch.messages.filter((message) => isAcceptOnly(message.body));
    for (const message of dropped) message.ack();
    if (dropped.length === batch.messages.length) return;
    const rest = batch.messages.filter((message) => !isAcceptOnly(message.body));
    const real: MessageBatch<unknown> = {
      queue: batch.queue,
      metadata: batch.metadata,
      messages: rest,
      ackAll: () => {
        for (const message of rest) message.ack();
      },
      retryAll: (options) => {
        for (const message of rest) message.retry(options);
      },
    };
    return worker.queue(real, countingEnv(env));
  },
} satisfies ExportedHandler<Env>;
