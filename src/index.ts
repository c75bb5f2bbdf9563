import { wakeDailyPasses } from "./agent-object/daily-wake";
import { wakeSchedulers } from "./agent-object/wake";
import { app } from "./app";
import { handleQueueBatch } from "./queue/consumer";

export { AgentObject } from "./agent-object/agent-object";
export { SessionObject } from "./session/session-object";

export default {
  // Either entry may be an isolate's first after a deploy: configured cron jobs start firing from it.
  fetch(request: Request, env: Env, ctx: Parameters<typeof app.fetch>[2]) {
    if (ctx) wakeSchedulers(env, ctx);
    return app.fetch(request, env, ctx);
  },
  async queue(batch: MessageBatch<unknown>, env: Env, ctx?: ExecutionContext) {
    if (ctx) wakeSchedulers(env, ctx);
    await handleQueueBatch(batch, env);
  },
  // The daily cron trigger (wrangler.toml [triggers]): every configured agent's maintenance pass (SPEC §23).
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    wakeSchedulers(env, ctx);
    await wakeDailyPasses(env);
  },
} satisfies ExportedHandler<Env>;
