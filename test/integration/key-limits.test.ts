import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, call } from "../support";
import type { HttpResult } from "../support/http";
import { rowsInEveryShard } from "../support/shards";
import { type Answer, errorOf } from "../support/wire";

// Session keys (README "Limits", src/keys/bounds.ts): at most 512 UTF-8 bytes and no control characters,
// wherever a key enters: tool params, the requester header or body field, a REST path, a created key.
// A refused key is a 400 naming the field, and nothing is created under it.

const enc = encodeURIComponent;
const uid = () => crypto.randomUUID().slice(0, 8);
const KEY = 512;

type Response = HttpResult<Answer>;

/** A fresh session of the main agent, to act as the requester. */
async function freshSession(): Promise<string> {
  const key = `agent:main:cron:keys-${uid()}`;
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

/** A canonical main-agent key of exactly `bytes` UTF-8 bytes, its tail made of `unit`. */
function keyOfBytes(bytes: number, unit = "k"): string {
  const prefix = `agent:main:cron:${uid()}-`;
  const unitBytes = new TextEncoder().encode(unit).byteLength;
  const room = bytes - prefix.length;
  return `${prefix}${unit.repeat(Math.floor(room / unitBytes))}${"k".repeat(room % unitBytes)}`;
}

/** How many index rows have a key containing `fragment`: a refused key must leave none. */
async function indexedKeysWith(fragment: string): Promise<number> {
  const rows = await rowsInEveryShard<{ n: number }>(
    "SELECT count(*) AS n FROM session_index WHERE instr(session_key, ?) > 0",
    fragment,
  );
  return rows.reduce((sum, row) => sum + row.n, 0);
}

const sessionNotFound = (response: Response) => {
  expect(response.status, response.text).toBe(200);
  expect(response.json.error).toContain("Session not found");
};

interface KeyLimit {
  /** Where the key enters, for the test name. */
  name: string;
  /** The field the 400 names: its message starts with `<field>: `. */
  field: string;
  bound: () => string;
  past: () => string;
  send: (value: string) => Promise<Response>;
  /** What a key at the bound gets (default: 200). */
  accepted?: (response: Response) => void;
}

const entries: KeyLimit[] = [
  {
    name: "sessions_history.sessionKey",
    field: "sessionKey",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (sessionKey) => tool(await freshSession(), "sessions_history", { sessionKey }),
    accepted: sessionNotFound,
  },
  {
    name: "sessions_history.sessionKey, counted in UTF-8 bytes",
    field: "sessionKey",
    bound: () => keyOfBytes(KEY, "é"),
    past: () => keyOfBytes(KEY + 1, "é"),
    send: async (sessionKey) => tool(await freshSession(), "sessions_history", { sessionKey }),
  },
  {
    name: "session_status.sessionKey",
    field: "sessionKey",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (sessionKey) => tool(await freshSession(), "session_status", { sessionKey }),
  },
  {
    name: "sessions_send.sessionKey",
    field: "sessionKey",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (sessionKey) => tool(await freshSession(), "sessions_send", { sessionKey, message: "hi" }),
  },
  {
    name: "X-Switchboard-Session",
    field: "sessionKey",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (requester) => tool(requester, "agents_list", {}),
  },
  {
    name: "/tools/invoke sessionKey",
    field: "sessionKey",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (sessionKey) =>
      call<Answer>("POST", "/tools/invoke", { token: ADMIN, body: { tool: "agents_list", sessionKey } }),
  },
  {
    name: "POST /v1/sessions key",
    field: "key",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (key) => call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { key } }),
    accepted: (response) => expect(response.status).toBe(201),
  },
  {
    name: "a REST path key",
    field: "key",
    bound: () => keyOfBytes(KEY),
    past: () => keyOfBytes(KEY + 1),
    send: async (key) => call<Answer>("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN }),
    accepted: (response) => expect(response.status).toBe(404),
  },
  {
    name: "a REST path key, once canonical (agent prefix added)",
    field: "key",
    bound: () => `cron:${uid()}-${"k".repeat(KEY - "agent:main:cron:".length - 9)}`,
    past: () => `cron:${uid()}-${"k".repeat(KEY - "agent:main:cron:".length - 8)}`,
    send: async (key) => call<Answer>("GET", `/v1/sessions/${enc(key)}`, { token: AGENT_TOKENS.main }),
    accepted: (response) => expect(response.status).toBe(404),
  },
];

describe(`session keys: at ${KEY} bytes accepted, one byte more a 400 naming the field`, () => {
  it.each(entries.map((entry) => [entry.name, entry] as const))("%s", async (_name, entry) => {
    const past = await entry.send(entry.past());
    expect(past.status, past.text.slice(0, 300)).toBe(400);
    expect(errorOf(past).message).toBe(`${entry.field}: session key longer than ${KEY} bytes`);
    const atBound = await entry.send(entry.bound());
    if (entry.accepted) entry.accepted(atBound);
    else expect(atBound.status, atBound.text.slice(0, 300)).toBe(200);
  });
});

describe("session keys: control characters are refused wherever a key enters", () => {
  const controls = [
    ["NUL", "\u0000"],
    ["newline", "\n"],
    ["tab", "\t"],
    ["DEL", "\u007f"],
    ["C1 NEL", "\u0085"],
  ] as const;

  it.each(controls)("%s", async (_name, control) => {
    const key = `agent:main:cron:ctl-${uid()}${control}x`;
    const created = await call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { key } });
    expect(created.status).toBe(400);
    expect(errorOf(created).message).toBe("key: session key contains a control character");
    const path = await call<Answer>("GET", `/v1/sessions/${enc(key)}`, { token: ADMIN });
    expect(path.status).toBe(400);
    expect(errorOf(path).message).toBe("key: session key contains a control character");
    const requester = await freshSession();
    for (const name of ["sessions_history", "session_status", "sessions_send"]) {
      const response = await tool(requester, name, { sessionKey: key, message: "hi" });
      expect(response.status, name).toBe(400);
      expect(errorOf(response).message).toBe("sessionKey: session key contains a control character");
    }
    const invoke = await call<Answer>("POST", "/tools/invoke", {
      token: ADMIN,
      body: { tool: "agents_list", sessionKey: key },
    });
    expect(invoke.status).toBe(400);
    expect(errorOf(invoke).message).toBe("sessionKey: session key contains a control character");
    expect(await indexedKeysWith(key.slice(16, 28))).toBe(0);
  });

  it("in the X-Switchboard-Session header too (a control character a header can carry)", async () => {
    const response = await tool(`agent:main:cron:ctl-${uid()}\u0001x`, "agents_list", {});
    expect(response.status).toBe(400);
    expect(errorOf(response).message).toBe("sessionKey: session key contains a control character");
  });
});

describe("a session key past the bound is never created", () => {
  it("POST /v1/sessions writes nothing", async () => {
    const key = keyOfBytes(KEY + 1);
    expect((await call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { key } })).status).toBe(400);
    expect(await indexedKeysWith(key.slice(16, 25))).toBe(0);
    // The same at the bound is created and indexed.
    const atBound = keyOfBytes(KEY);
    expect(
      (await call<Answer>("POST", "/v1/sessions", { token: ADMIN, body: { key: atBound } })).status,
    ).toBe(201);
    expect(await indexedKeysWith(atBound.slice(16, 25))).toBe(1);
  });
});
