import { app } from "./app";
import { handleQueueBatch } from "./queue/consumer";

export { AgentObject } from "./agent-object/agent-object";
export { SessionObject } from "./session/session-object";

export default {
  fetch: app.fetch,
  queue: handleQueueBatch,
} satisfies ExportedHandler<Env>;
