import { describe, expect, it } from "vitest";
import { cleanAssistantText } from "../../src/history/clean-assistant-text";

describe("cleanAssistantText: SPEC §5.2 examples", () => {
  it("removes a think block and keeps both surrounding spaces", () => {
    expect(cleanAssistantText("Before <think>secret</think> after")).toBe("Before  after");
  });

  it("removes control tokens at the edges without trimming anything else", () => {
    expect(cleanAssistantText("<|assistant|>Here is the answer<|end|>")).toBe("Here is the answer");
  });

  it("removes a tool_result JSON payload block between lines", () => {
    expect(cleanAssistantText('Prefix\n<tool_result>{"output":"hidden"}</tool_result>\nSuffix')).toBe(
      "Prefix\n\nSuffix",
    );
  });

  it("keeps a lone opening tool tag in prose", () => {
    expect(cleanAssistantText("Use <tool_call> to invoke tools.")).toBe("Use <tool_call> to invoke tools.");
  });
});

describe("cleanAssistantText: reasoning blocks", () => {
  it.each([
    ["<thinking>plan</thinking>Answer", "Answer"],
    ["<thought>hmm</thought>Answer", "Answer"],
    ["<antThinking>x</antThinking>Answer", "Answer"],
    ["<THINK>loud</THINK>Answer", "Answer"],
    ['<think reason="deep">multi\nline</think>Answer', "Answer"],
  ])("removes %j", (input, expected) => {
    expect(cleanAssistantText(input)).toBe(expected);
  });

  it("hides everything after an unclosed reasoning block", () => {
    expect(cleanAssistantText("Visible <think>the model was cut off here")).toBe("Visible ");
  });

  it("removes a lone closing and a self-closing reasoning tag", () => {
    expect(cleanAssistantText("a</think>b<think/>c")).toBe("abc");
  });

  it("leaves reasoning tags inside code alone", () => {
    const text = "Write `<think>x</think>` or\n```\n<think>y</think>\n```\n";
    expect(cleanAssistantText(text)).toBe(text);
  });
});

describe("cleanAssistantText: relevant memories", () => {
  it("removes hyphen and underscore forms", () => {
    expect(cleanAssistantText("A<relevant-memories>m1</relevant-memories>B")).toBe("AB");
    expect(cleanAssistantText("A<relevant_memories>\n- m2\n</relevant_memories>B")).toBe("AB");
  });

  it("hides the rest of the text after an unclosed block", () => {
    expect(cleanAssistantText("Keep\n<relevant-memories>\n- user's address is …\nMore")).toBe("Keep\n");
  });
});

describe("cleanAssistantText: control tokens", () => {
  it("keeps one space where a token sat between two non-space characters", () => {
    expect(cleanAssistantText("Hello<|end|>world")).toBe("Hello world");
  });

  it("adds nothing when a space is already beside the token", () => {
    expect(cleanAssistantText("Hello <|end|>world")).toBe("Hello world");
    expect(cleanAssistantText("Hello <|end|> world")).toBe("Hello  world");
  });

  it("treats adjacent tokens as one", () => {
    expect(cleanAssistantText("a<|im_end|><|im_start|>b")).toBe("a b");
  });

  it("removes the full-width form", () => {
    expect(cleanAssistantText("<｜begin▁of▁sentence｜>Hi<｜end▁of▁sentence｜>")).toBe("Hi");
    expect(cleanAssistantText("one<｜tool▁sep｜>two")).toBe("one two");
  });

  it("leaves tokens inside code alone", () => {
    const text = "The stop token is `<|endoftext|>`.\n```\n<|im_start|>user\n```";
    expect(cleanAssistantText(text)).toBe(text);
  });
});

describe("cleanAssistantText: MiniMax tool XML", () => {
  it("removes invoke blocks and the wrapper tags when the wrapper is present", () => {
    const text =
      'Checking.<minimax:tool_call>\n<invoke name="read">\n<parameter name="path">/etc</parameter>\n</invoke>\n</minimax:tool_call> Done.';
    expect(cleanAssistantText(text)).toBe("Checking.\n\n Done.");
  });

  it("removes a stray closing wrapper with its invoke", () => {
    expect(cleanAssistantText('Hi <invoke name="x">p</invoke></minimax:tool_call> there')).toBe("Hi  there");
  });

  it("keeps invoke tags in text without the wrapper", () => {
    const text = 'Call <invoke name="x">p</invoke> later';
    expect(cleanAssistantText(text)).toBe(text);
  });
});

describe("cleanAssistantText: plain text", () => {
  it("returns ordinary text unchanged, whitespace included", () => {
    const text = "  Hello, world!  \n\n  a < b > c [not scaffolding]  ";
    expect(cleanAssistantText(text)).toBe(text);
  });
});
