import { z } from "zod";

/**
 * Queue messages this Worker understands. Sends and outbound deliveries join this union as they land;
 * until then nothing is produced, and anything that arrives is retried until the dead-letter queue
 * takes it, never acknowledged unread.
 */
export const queueMessageSchema = z.never();

/** The queue consumer: every body is parsed; each message is acked or retried explicitly. */
export async function handleQueueBatch(batch: MessageBatch<unknown>): Promise<void> {
  for (const message of batch.messages) {
    const parsed = queueMessageSchema.safeParse(message.body);
    if (!parsed.success) {
      console.warn(
        `queue ${batch.queue}: message ${message.id} has an unknown shape; retrying towards the dead-letter queue`,
      );
      message.retry();
    }
  }
}
