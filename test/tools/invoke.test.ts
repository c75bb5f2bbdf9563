import { describe, expect, it } from "vitest";
import { JsonText, stringifyJson } from "../../src/text/json-text";
import { invokeAnswerJson, isToolAllowed, prepareToolCall, toolEnvelope } from "../../src/tools/invoke";
import { configFrom, requesterWith } from "../support";

const paramsOf = (name: string, args: unknown) => {
  const prepared = prepareToolCall(name, args);
  if (!prepared.ok) throw new Error(prepared.message);
  return prepared.params;
};

const errorOf = (name: string, args: unknown) => {
  const prepared = prepareToolCall(name, args);
  return prepared.ok ? undefined : { code: prepared.code, message: prepared.message };
};

describe("prepareToolCall", () => {
  it("names a missing required param", () => {
    expect(errorOf("sessions_history", {})).toEqual({ code: "bad_request", message: "sessionKey required" });
    expect(errorOf("sessions_history", undefined)).toEqual({
      code: "bad_request",
      message: "sessionKey required",
    });
  });

  it("treats an empty or blank required string as missing", () => {
    expect(errorOf("sessions_history", { sessionKey: "" })).toEqual({
      code: "bad_request",
      message: "sessionKey required",
    });
    expect(errorOf("sessions_history", { session_key: "   " })).toEqual({
      code: "bad_request",
      message: "sessionKey required",
    });
  });

  it("accepts snake_case, trims strings and floors numbers", () => {
    expect(
      paramsOf("sessions_history", { session_key: "  agent:main:main ", limit: 10.8, include_tools: true }),
    ).toEqual({ sessionKey: "agent:main:main", limit: 10, includeTools: true });
    expect(paramsOf("sessions_list", { message_limit: 2.5, active_minutes: 90.1 })).toEqual({
      messageLimit: 2,
      activeMinutes: 90,
    });
  });

  it("drops empty optional strings", () => {
    expect(paramsOf("session_status", { sessionKey: "", model: " " })).toEqual({});
  });

  it("names the param of a wrong type", () => {
    expect(errorOf("sessions_list", { limit: "10" })?.message).toMatch(/^limit: /);
    expect(errorOf("sessions_list", { kinds: "main" })?.message).toMatch(/^kinds: /);
    expect(errorOf("sessions_list", { kinds: ["main", 3] })?.message).toMatch(/^kinds\.1: /);
    expect(errorOf("sessions_history", { sessionKey: 42 })?.message).toMatch(/^sessionKey: /);
    expect(errorOf("sessions_history", { sessionKey: "main", include_tools: "yes" })?.message).toMatch(
      /^includeTools: /,
    );
  });

  it("requires args to be an object", () => {
    for (const args of ["text", 5, [1, 2], true]) {
      expect(errorOf("sessions_list", args)).toEqual({
        code: "bad_request",
        message: "args must be an object",
      });
    }
  });

  it("reports an unknown tool as not found", () => {
    expect(errorOf("sessions_teleport", {})?.code).toBe("tool_not_found");
    expect(errorOf("__proto__", {})?.code).toBe("tool_not_found");
    expect(errorOf("toString", {})?.code).toBe("tool_not_found");
  });
});

describe("isToolAllowed", () => {
  it("follows the requester's profile", () => {
    const config = configFrom({
      agents: { list: [{ id: "main" }, { id: "ops", tools: { profile: "messaging" } }] },
    });
    expect(isToolAllowed({ config, requester: requesterWith() }, "agents_list")).toBe(true);
    expect(isToolAllowed({ config, requester: requesterWith({ agentId: "ops" }) }, "agents_list")).toBe(
      false,
    );
    expect(isToolAllowed({ config, requester: requesterWith({ agentId: "ops" }) }, "sessions_list")).toBe(
      true,
    );
  });
});

describe("toolEnvelope", () => {
  it("wraps details as one text block holding their JSON", () => {
    const details = { count: 1, nested: { a: [1, "b"] }, gone: undefined };
    const envelope = toolEnvelope("sessions_list", details);
    expect(envelope).toEqual({
      content: [{ type: "text", text: '{"count":1,"nested":{"a":[1,"b"]}}' }],
      details,
    });
    expect(JSON.parse(envelope.content[0]?.text ?? "")).toEqual({ count: 1, nested: { a: [1, "b"] } });
  });

  it("gives session_status its card as the text, and its error results their JSON", () => {
    const card = { ok: true, sessionKey: "agent:main:main", statusText: "Switchboard\nRun: idle" };
    expect(toolEnvelope("session_status", card).content).toEqual([{ type: "text", text: card.statusText }]);
    const refused = { status: "forbidden", error: "no" };
    expect(toolEnvelope("session_status", refused).content[0]?.text).toBe(JSON.stringify(refused));
  });
});

describe("invokeAnswerJson", () => {
  it("is the text of the envelope answer, byte for byte, with the details serialized once", () => {
    const answer = (name: string, details: object) =>
      stringifyJson({ ok: true, result: toolEnvelope(name, details) });
    const list = { count: 1, sessions: [{ key: "main", label: 'a "quoted"\nline' }], gone: undefined };
    const page = { messages: [new JsonText('{"role":"user","content":"hi"}')], hasMore: false };
    const card = { ok: true, sessionKey: "agent:main:main", statusText: "Switchboard\nRun: idle" };
    for (const [name, details] of [
      ["sessions_list", list],
      ["sessions_history", page],
      ["session_status", card],
      ["session_status", { status: "forbidden", error: "no" }],
    ] as const)
      expect(invokeAnswerJson(name, details)).toBe(answer(name, details));
  });
});

describe("hostile args", () => {
  it("ignores a __proto__ key instead of reading params from it", () => {
    expect(
      errorOf("sessions_history", JSON.parse('{"__proto__": {"sessionKey": "agent:main:main"}}')),
    ).toEqual({
      code: "bad_request",
      message: "sessionKey required",
    });
  });
});
