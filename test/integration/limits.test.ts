import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load";
import { ADMIN, AGENT_TOKENS, call, deferredRun } from "../support";
import type { HttpResult } from "../support/http";
import { type Answer, errorOf } from "../support/wire";

// The limits of README "Limits" (src/limits.ts) on text, labels, idempotency keys and stored session
// fields, each at its bound (accepted) and one past it (a 400 whose message starts with the field). Session
// keys are in key-limits.test.ts, search and nesting in bad-input-500s.test.ts.

const enc = encodeURIComponent;
const uid = () => crypto.randomUUID().slice(0, 8);
const TEXT = 256 * 1024;
const LABEL = 512;
const IDEMPOTENCY = 200;

type Response = HttpResult<Answer>;

/** A fresh session of the main agent, to act as the requester (or be the target). */
async function freshSession(agentId = "main"): Promise<string> {
  const key = `agent:${agentId}:cron:lim-${uid()}`;
  const created = await call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { key } });
  expect(created.status, created.text).toBe(201);
  return key;
}

/** A tool call on `/v1/tools/{name}` with the main agent's token, as `requester`. */
const tool = (requester: string, name: string, args: Record<string, unknown>) =>
  call<Answer>("POST", `/v1/tools/${name}`, {
    token: AGENT_TOKENS.main,
    headers: { "X-Switchboard-Session": requester },
    body: args,
  });

/** A string of exactly `length` characters. */
const chars = (length: number, unit = "x") => unit.repeat(length);

interface Limit {
  /** What is limited, for the test name. */
  name: string;
  /** The field the 400 names: its message starts with `<field>: `. */
  field: string;
  bound: string | (() => string);
  past: string | (() => string);
  /** Sends the value; answers the response. */
  send: (value: string) => Promise<Response>;
  /** What an accepted value gets (default: any 2xx). */
  accepted?: (response: Response) => void;
}

const acceptedSend = (response: Response) => {
  expect(response.status, response.text).toBe(200);
  expect(response.json.status).toBe("accepted");
};

const sessionNotFound = (response: Response) => {
  expect(response.status, response.text).toBe(200);
  expect(response.json.error).toContain("Session not found");
};

const limits: Limit[] = [
  {
    name: "sessions_send.message (fire-and-forget)",
    field: "message",
    bound: chars(TEXT),
    past: chars(TEXT + 1),
    // To a session that does not exist: valid input, answered by the lookup after validation.
    send: async (message) =>
      tool(await freshSession(), "sessions_send", {
        sessionKey: `agent:main:cron:none-${uid()}`,
        message,
        timeoutSeconds: 0,
      }),
    accepted: sessionNotFound,
  },
  {
    name: "sessions_send.message, counted in UTF-8 bytes",
    field: "message",
    bound: `${chars((TEXT - 1) / 3, "€")}x`,
    past: chars((TEXT + 2) / 3, "€"),
    // To a session that does not exist: valid input, answered by the lookup after validation.
    send: async (message) =>
      tool(await freshSession(), "sessions_send", {
        sessionKey: `agent:main:cron:none-${uid()}`,
        message,
        timeoutSeconds: 0,
      }),
    accepted: sessionNotFound,
  },
  {
    name: "sessions_send.message (waiting)",
    field: "message",
    bound: chars(TEXT),
    past: chars(TEXT + 1),
    send: async (message) => {
      const self = await freshSession();
      return tool(self, "sessions_send", { sessionKey: self, message, timeoutSeconds: 5 });
    },
    // Valid input: the self-send check that follows answers it, as a result.
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.json.error).toContain("cannot send to itself and wait");
    },
  },
  {
    name: "sessions_spawn.task",
    field: "task",
    bound: chars(TEXT),
    past: chars(TEXT + 1),
    send: async (task) => tool(await freshSession(), "sessions_spawn", { task }),
    accepted: acceptedSend,
  },
  {
    name: "sessions_yield.message",
    field: "message",
    bound: chars(TEXT),
    past: chars(TEXT + 1),
    send: async (message) => tool(await freshSession(), "sessions_yield", { message }),
    // Outside a run the call is valid but has nothing to yield.
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.json.status).toBe("error");
    },
  },
  {
    name: "sessions_send.idempotencyKey",
    field: "idempotencyKey",
    bound: chars(IDEMPOTENCY),
    past: chars(IDEMPOTENCY + 1),
    send: async (idempotencyKey) => {
      const self = await freshSession();
      return tool(self, "sessions_send", {
        sessionKey: self,
        message: "hi",
        timeoutSeconds: 0,
        idempotencyKey,
      });
    },
    accepted: acceptedSend,
  },
  {
    name: "sessions_spawn.idempotencyKey",
    field: "idempotencyKey",
    bound: chars(IDEMPOTENCY),
    past: chars(IDEMPOTENCY + 1),
    send: async (idempotencyKey) =>
      tool(await freshSession(), "sessions_spawn", { task: "t", idempotencyKey }),
    accepted: acceptedSend,
  },
  {
    name: "/tools/invoke idempotencyKey",
    field: "idempotencyKey",
    bound: chars(IDEMPOTENCY),
    past: chars(IDEMPOTENCY + 1),
    send: async (idempotencyKey) =>
      call<Answer>("POST", "/tools/invoke", {
        token: AGENT_TOKENS.main,
        body: { tool: "agents_list", args: {}, idempotencyKey },
      }),
  },
  {
    name: "chat.send idempotencyKey",
    field: "idempotencyKey",
    bound: chars(IDEMPOTENCY),
    past: chars(IDEMPOTENCY + 1),
    send: async (idempotencyKey) =>
      call<Answer>("POST", `/v1/sessions/${enc(await freshSession())}/messages`, {
        token: ADMIN,
        body: { text: "hi", idempotencyKey },
      }),
    accepted: (response) => expect(response.status).toBe(202),
  },
  {
    name: "sessions_list.label",
    field: "label",
    bound: chars(LABEL),
    past: chars(LABEL + 1),
    send: async (label) => tool(await freshSession(), "sessions_list", { label }),
  },
  {
    name: "sessions_send.label",
    field: "label",
    bound: chars(LABEL),
    past: chars(LABEL + 1),
    send: async (label) => tool(await freshSession(), "sessions_send", { label, message: "hi" }),
    accepted: (response) => {
      expect(response.status).toBe(200);
      expect(response.json.error).toContain("No session labelled");
    },
  },
  {
    name: "sessions_spawn.label",
    field: "label",
    bound: chars(LABEL),
    past: chars(LABEL + 1),
    send: async (label) => tool(await freshSession(), "sessions_spawn", { task: "t", label }),
    accepted: acceptedSend,
  },
  {
    name: "subagents.target (a key or a label)",
    field: "target",
    bound: chars(LABEL),
    past: chars(LABEL + 1),
    send: async (target) => tool(await freshSession(), "subagents", { action: "kill", target }),
  },
  {
    name: "sessions_spawn attachment mimeType",
    field: "attachments.0.mimeType",
    bound: chars(255),
    past: chars(256),
    send: async (mimeType) =>
      tool(await freshSession(), "sessions_spawn", {
        task: "t",
        attachments: [{ name: "a.txt", content: "x", mimeType }],
      }),
    accepted: acceptedSend,
  },
  {
    name: "POST /v1/sessions subject",
    field: "subject",
    bound: chars(LABEL),
    past: chars(LABEL + 1),
    send: async (subject) =>
      call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { agentId: "main", subject } }),
    accepted: (response) => expect(response.status).toBe(201),
  },
  {
    name: "POST /v1/sessions channel",
    field: "channel",
    bound: chars(64, "c"),
    past: chars(65, "c"),
    send: async (channel) =>
      call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { agentId: "main", channel } }),
    accepted: (response) => expect(response.status).toBe(201),
  },
  ...(
    [
      ["channel", 64],
      ["to", 256],
      ["accountId", 200],
      ["threadId", 200],
    ] as const
  ).map(
    ([field, bound]): Limit => ({
      name: `POST /v1/sessions deliveryContext.${field}`,
      field: `deliveryContext.${field}`,
      bound: chars(bound, "d"),
      past: chars(bound + 1, "d"),
      send: async (value) =>
        call<Answer>("POST", "/v1/sessions", {
          token: ADMIN,
          body: { agentId: "main", deliveryContext: { channel: "discord", to: "x", [field]: value } },
        }),
      accepted: (response) => expect(response.status).toBe(201),
    }),
  ),
  {
    name: "PATCH model",
    field: "model",
    bound: chars(200),
    past: chars(201),
    send: async (model) =>
      call<Answer>("PATCH", `/v1/sessions/${enc(await freshSession())}`, { token: ADMIN, body: { model } }),
    // Within the bound, the model is then looked up among the configured ones.
    accepted: (response) => {
      expect(response.status).toBe(400);
      expect(errorOf(response).message).toContain("is not a configured model");
    },
  },
];

describe("limits: at the bound accepted, one past it a 400 naming the field", () => {
  it.each(limits.map((limit) => [limit.name, limit] as const))("%s", async (_name, limit) => {
    const value = (v: string | (() => string)) => (typeof v === "function" ? v() : v);
    const past = await limit.send(value(limit.past));
    expect(past.status, past.text.slice(0, 300)).toBe(400);
    expect(errorOf(past).message).toMatch(new RegExp(`^${limit.field.replaceAll(".", "\\.")}: `));
    const atBound = await limit.send(value(limit.bound));
    if (limit.accepted) limit.accepted(atBound);
    else expect(atBound.status, atBound.text.slice(0, 300)).toBe(200);
  });
});

describe("a webhook agent's deferred result text", () => {
  it(`is at most ${TEXT} bytes`, async () => {
    const key = await freshSession("hook-async-rec");
    const sent = await call<Answer>("POST", `/v1/sessions/${enc(key)}/messages`, {
      token: ADMIN,
      body: { text: "job" },
    });
    const runId = String(sent.json.runId);
    const { runToken } = await deferredRun(key, runId);
    const post = (text: string) =>
      call<Answer>("POST", `/v1/runs/${runId}/result`, { token: runToken, body: { text } });
    const past = await post(chars(TEXT + 1));
    expect(past.status).toBe(400);
    expect(errorOf(past).message).toBe(`text larger than ${TEXT} bytes`);
    expect((await call<Answer>("GET", `/v1/runs/${runId}`, { token: ADMIN })).json.status).toBe("running");
    const atBound = await post(chars(TEXT));
    expect(atBound.status, atBound.text.slice(0, 200)).toBe(200);
    expect(atBound.json.status).toBe("ok");
  });
});

describe("configuration limits", () => {
  const withConfig = (patch: Record<string, unknown>) => parseConfig(JSON.stringify(patch));
  it("a channel name is a key segment: lower-case, at most 64 characters", () => {
    expect(withConfig({ channels: { [chars(64, "c")]: {} } }).ok).toBe(true);
    for (const name of [chars(65, "c"), "Discord", "my channel", "-x", "a:b"]) {
      const parsed = withConfig({ channels: { [name]: {} } });
      expect(parsed.ok, name).toBe(false);
      if (!parsed.ok) expect(parsed.error).toContain("channel name must match");
    }
  });

  it("a model name is at most 200 characters", () => {
    expect(withConfig({ agents: { list: [{ id: "main", model: chars(200) }] } }).ok).toBe(true);
    const parsed = withConfig({ agents: { list: [{ id: "main", model: chars(201) }] } });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain("agents.list[0].model");
  });
});

describe("a webhook agent's synchronous answer", () => {
  it(`fails the run, saying why, when its text is over ${TEXT} bytes`, async () => {
    // hook-sync answers "webhook got: <message text>": a message at the bound makes an answer past it.
    const key = await freshSession("hook-sync");
    const sent = await call<Answer>("POST", `/v1/sessions/${enc(key)}/messages`, {
      token: ADMIN,
      body: { text: chars(TEXT) },
    });
    const waited = await call<Answer>("POST", `/v1/runs/${sent.json.runId}/wait`, {
      token: ADMIN,
      body: { timeoutMs: 10_000 },
    });
    expect(waited.json.status).toBe("error");
    expect(waited.json.error).toBe(
      `agent webhook answered an invalid result: text larger than ${TEXT} bytes`,
    );
  });
});
