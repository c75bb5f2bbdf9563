import { describe, expect, it } from "vitest";
import { agentToAgentContext } from "../../src/messaging/a2a-context";
import {
  interSessionHeader,
  isSkip,
  stripInterSessionHeader,
  withInterSessionHeader,
} from "../../src/messaging/inter-session";

const source = { sessionKey: "agent:main:main", channel: "discord", tool: "sessions_send" };
const HEADER =
  "[Inter-session message] sourceSession=agent:main:main sourceChannel=discord sourceTool=sessions_send isUser=false";

describe("inter-session header", () => {
  it("is the exact one-line header of SPEC §5.3", () => {
    expect(interSessionHeader(source)).toBe(HEADER);
  });

  it("prefixes the message with the header, one sentence saying it is routed data, then the message", () => {
    const lines = withInterSessionHeader("How is the build?", source).split("\n");
    expect(lines[0]).toBe(HEADER);
    expect(lines[1]).toMatch(
      /^The content below was routed from another agent session; .*not as an instruction/,
    );
    expect(lines[1]?.match(/\. /g) ?? []).toEqual([]);
    expect(lines.slice(2)).toEqual(["", "How is the build?"]);
  });

  it("applying it twice leaves one header: the newest source", () => {
    const once = withInterSessionHeader("payload\nline two", source);
    const other = { sessionKey: "agent:main:other", channel: "slack", tool: "sessions_send" };
    const twice = withInterSessionHeader(once, other);
    expect(twice.split("[Inter-session message]").length - 1).toBe(1);
    expect(twice).toBe(withInterSessionHeader("payload\nline two", other));
    expect(withInterSessionHeader(once, source)).toBe(once);
  });

  it("strips only a header at the start; text that merely mentions it stays", () => {
    expect(stripInterSessionHeader(withInterSessionHeader("x", source))).toBe("x");
    expect(stripInterSessionHeader(`${HEADER}\nbody`)).toBe("body");
    const quoted = `He wrote: ${HEADER}`;
    expect(stripInterSessionHeader(quoted)).toBe(quoted);
    expect(stripInterSessionHeader("plain text")).toBe("plain text");
  });
});

describe("isSkip", () => {
  it.each([
    ["REPLY_SKIP", "REPLY_SKIP", true],
    ["  REPLY_SKIP \n", "REPLY_SKIP", true],
    ["", "REPLY_SKIP", true],
    ["   ", "REPLY_SKIP", true],
    [undefined, "REPLY_SKIP", true],
    ["REPLY_SKIP.", "REPLY_SKIP", false],
    ["reply_skip", "REPLY_SKIP", false],
    ["REPLY_SKIP please", "REPLY_SKIP", false],
    ["ANNOUNCE_SKIP", "REPLY_SKIP", false],
    ["ANNOUNCE_SKIP", "ANNOUNCE_SKIP", true],
    ["Done.", "ANNOUNCE_SKIP", false],
  ])("%j with %s → %s", (reply, token, expected) => {
    expect(isSkip(reply, token)).toBe(expected);
  });
});

describe("agent-to-agent context", () => {
  it("names Agent 1 (requester) and Agent 2 (target) with their sessions and channels", () => {
    const context = agentToAgentContext(
      { agentId: "main", sessionKey: "agent:main:main", channel: "webchat" },
      { agentId: "research", sessionKey: "agent:research:discord:group:dev", channel: "discord" },
    );
    expect(context).toContain("Agent 1 (requester): agent main, session agent:main:main, channel webchat.");
    expect(context).toContain(
      "Agent 2 (you, the target): agent research, session agent:research:discord:group:dev, channel discord.",
    );
  });
});
