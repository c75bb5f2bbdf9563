import { describe, expect, it } from "vitest";
import { cleanAssistantText } from "../../src/history/clean-assistant-text";

describe("cleanAssistantText: tool-call XML payloads", () => {
  it.each(["tool_call", "tool_result", "function_call", "function_calls", "tool_calls"])(
    "removes a <%s> block whose content is JSON",
    (tag) => {
      expect(cleanAssistantText(`A<${tag}>\n  {"name":"x"}\n</${tag}>B`)).toBe("AB");
      expect(cleanAssistantText(`A<${tag}>[1, 2]</${tag}>B`)).toBe("AB");
    },
  );

  it("is case-insensitive and allows attributes", () => {
    expect(cleanAssistantText('A<TOOL_CALL id="1">{"a":1}</Tool_Call>B')).toBe("AB");
  });

  it("does not end the block at a close tag inside a JSON string", () => {
    const text = 'A<tool_call>{"note":"</tool_call> is text","x":"\\"</tool_call>"}</tool_call>B';
    expect(cleanAssistantText(text)).toBe("AB");
  });

  it("hides the rest of the text after an unclosed payload", () => {
    expect(cleanAssistantText('Start <tool_call>{"name":"exec","args":{"cmd":"rm')).toBe("Start ");
    expect(cleanAssistantText('Start <tool_call>{"a":1}\nlater prose')).toBe("Start ");
  });

  it("hides the rest of the text after a truncated opening tag", () => {
    expect(cleanAssistantText("Working on it <tool_call")).toBe("Working on it ");
    expect(cleanAssistantText('Working on it <function_call name="ex')).toBe("Working on it ");
    expect(cleanAssistantText("Working on it <tool_call>\n  ")).toBe("Working on it ");
  });

  it("removes self-closing and lone closing tags", () => {
    expect(cleanAssistantText("a<tool_call/>b<tool_result />c</tool_calls>d")).toBe("abcd");
  });

  it("keeps an opening tag whose content is prose, but removes the lone close after it", () => {
    expect(cleanAssistantText("Wrap it in <tool_call> and </tool_call> tags")).toBe(
      "Wrap it in <tool_call> and  tags",
    );
  });

  it("leaves payload blocks inside fenced and inline code alone", () => {
    const fenced = 'Example:\n```xml\n<tool_call>{"name":"x"}</tool_call>\n```\nend';
    const inline = 'Send `<tool_call>{"name":"x"}</tool_call>` to the model';
    expect(cleanAssistantText(fenced)).toBe(fenced);
    expect(cleanAssistantText(inline)).toBe(inline);
  });

  it("treats an unclosed fence as code to the end", () => {
    const text = 'Look:\n```\n<tool_call>{"a":1}';
    expect(cleanAssistantText(text)).toBe(text);
  });
});

describe("cleanAssistantText: downgraded scaffolding", () => {
  it("removes a [Tool Call: …] marker with its Arguments JSON on the next line", () => {
    const text = 'Let me look.\n[Tool Call: read (ID: call_1)]\nArguments: {\n  "path": "a]b"\n}\nDone.';
    expect(cleanAssistantText(text)).toBe("Let me look.\n\nDone.");
  });

  it("removes a [Tool Call: …] marker without arguments", () => {
    expect(cleanAssistantText("Hello [Tool Call: foo (ID: 1)] world")).toBe("Hello  world");
  });

  it("removes an Arguments payload that is not JSON up to the end of its line", () => {
    expect(cleanAssistantText("[Tool Call: x] Arguments: path=/tmp\nNext")).toBe("\nNext");
  });

  it("removes a [Tool Result for ID …] block up to the next blank line", () => {
    const text = "Before\n[Tool Result for ID call_1]\nline one\nline two\n\nAfter";
    expect(cleanAssistantText(text)).toBe("Before\n\n\nAfter");
  });

  it("removes a [Historical context: …] marker, brackets inside it included", () => {
    const text = '[Historical context: called "x" with {"list":[1,2]}] Answer';
    expect(cleanAssistantText(text)).toBe(" Answer");
  });

  it("leaves scaffolding inside code alone", () => {
    const text = "Format: `[Tool Call: name (ID: id)]`";
    expect(cleanAssistantText(text)).toBe(text);
  });
});
