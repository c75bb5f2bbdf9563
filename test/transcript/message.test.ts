import { describe, expect, it } from "vitest";
import { messageText } from "../../src/transcript/message";

describe("messageText", () => {
  it("joins text blocks and skips the rest", () => {
    expect(
      messageText({
        content: [
          { type: "text", text: "a" },
          { type: "thinking", thinking: "x" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\nb");
  });
});
