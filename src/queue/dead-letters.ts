import { z } from "zod";
import { type OutboundMessage, outboundMessageSchema } from "./messages";

/** What the consumer itself dead-letters: the message's body with why it gave up. */
const ourDeadLetter = z.object({ body: z.unknown(), reason: z.string() });

/**
 * A dead-lettered message: sent by our consumer (`{ body, reason }`), or moved by the Queue after its
 * last retry (the body as it was). The channel post in it, if it is one.
 */
export function deadLetterOf(body: unknown): { post?: OutboundMessage; reason: string } {
  const ours = ourDeadLetter.safeParse(body);
  const inner = ours.success ? ours.data.body : body;
  const reason = ours.success ? ours.data.reason : "the deliveries queue gave up after its last retry";
  const post = outboundMessageSchema.safeParse(inner);
  return post.success ? { post: post.data, reason } : { reason };
}
