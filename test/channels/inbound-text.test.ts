import { describe, expect, it } from "vitest";
import { inboundMessageSchema } from "../../src/channels/inbound";
import { chatSendSchema } from "../../src/routes/v1/session-schemas";
import { MAX_MESSAGE_TEXT_BYTES, sentTextSchema } from "../../src/transcript/message";

// A message sent through a channel and one sent with chat.send follow the same text rules: one schema.
describe("sent message text", () => {
  it("is one schema for chat.send and a channel's inbound message", () => {
    expect(inboundMessageSchema.shape.text).toBe(sentTextSchema);
    expect(chatSendSchema.shape.text).toBe(sentTextSchema);
  });

  it("is trimmed, refuses a text of only spaces, and counts bytes after the trim", () => {
    expect(sentTextSchema.parse("  hi  ")).toBe("hi");
    expect(sentTextSchema.safeParse("   ").success).toBe(false);
    const atLimit = "é".repeat(MAX_MESSAGE_TEXT_BYTES / 2);
    expect(sentTextSchema.safeParse(`  ${atLimit}  `).success).toBe(true);
    const over = sentTextSchema.safeParse(`${atLimit}é`);
    expect(over.success).toBe(false);
    expect(over.error?.issues[0]?.message).toBe(`text larger than ${MAX_MESSAGE_TEXT_BYTES} bytes`);
  });
});
