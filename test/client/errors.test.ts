import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  ServerError,
  SwitchboardClient,
  SwitchboardError,
  TimeoutError,
  UnauthorizedError,
} from "../../packages/client/src/index";
import { ADMIN, AGENT_TOKENS, uid } from "../support";
import { testClient } from "./fixtures";

/** The error a call rejects with (fails the test when it resolves). */
async function failure(call: Promise<unknown>): Promise<SwitchboardError> {
  const error = await call.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!(error instanceof SwitchboardError))
    throw new Error(`expected a SwitchboardError, got ${String(error)}`);
  return error;
}

/** A client whose fetch answers every request with `response`. */
const answering = (response: () => Response) =>
  new SwitchboardClient({ baseUrl: "http://switchboard.test", token: "t", fetch: async () => response() });

describe("client errors", () => {
  it("401: a bad token", async () => {
    const { client } = testClient({ token: "not-a-token" });
    const error = await failure(client.sessionsList());
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ kind: "unauthorized", code: "unauthorized", status: 401 });
    expect(error.message).toContain("the token was refused");
  });

  it("403: a token acting outside its scope keeps the server's reason", async () => {
    const { client } = testClient({ token: AGENT_TOKENS.main });
    const error = await failure(client.getSession("agent:research:main"));
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error).toMatchObject({ kind: "forbidden", status: 403 });
    expect(error.serverMessage).toBe(`an agent token for "main" reaches only that agent's sessions`);
    expect(error.message).toContain("reaches only that agent's sessions");
  });

  it("404: an unknown session, and a tool this server does not serve", async () => {
    const { client } = testClient({ token: ADMIN });
    const missing = await failure(client.getSession(`agent:main:missing-${uid()}`));
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: "not_found", status: 404, serverMessage: "session not found" });

    const tool = await failure(client.with({ token: AGENT_TOKENS.main }).tool("no_such_tool"));
    expect(tool).toBeInstanceOf(NotFoundError);
    expect(tool).toMatchObject({ code: "tool_not_found", status: 404 });
    expect(tool.message).toContain("tool profile");
  });

  it("400 names the field, from REST and from /tools/invoke's { ok: false, error: { type } }", async () => {
    const { client } = testClient({ token: ADMIN });
    const rest = await failure(
      client.createSession({ agentId: "main", key: `bad-${uid()}`, channel: "Not A Channel!" }),
    );
    expect(rest).toBeInstanceOf(BadRequestError);
    expect(rest).toMatchObject({ code: "bad_request", status: 400 });
    expect(rest.serverMessage).toContain("channel");

    const invoked = await failure(client.with({ token: AGENT_TOKENS.main }).invoke("sessions_history", {}));
    expect(invoked).toBeInstanceOf(BadRequestError);
    expect(invoked.code).toBe("tool_error");
    expect(invoked.serverMessage).toContain("sessionKey");
  });

  it("413: a body over 2 MB", async () => {
    const { client } = testClient({ token: ADMIN });
    const huge = [
      { id: "big", role: "user" as const, content: "x".repeat(2 * 1024 * 1024 + 1), timestamp: 1 },
    ];
    const error = await failure(client.importTranscript("agent:main:main", huge));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ kind: "payload_too_large", status: 413 });
  });

  it("5xx: a server error, with a hint for an invalid configuration", async () => {
    const internal = await failure(
      answering(() =>
        Response.json({ error: { code: "internal", message: "internal error" } }, { status: 500 }),
      ).healthz(),
    );
    expect(internal).toBeInstanceOf(ServerError);
    expect(internal).toMatchObject({ kind: "server", code: "internal", status: 500 });

    const config = await failure(
      answering(() =>
        Response.json({ error: { code: "config_invalid", message: "agents.list: bad" } }, { status: 500 }),
      ).agentsList(),
    );
    expect(config.message).toContain("npm run config:check");
  });

  it("unreachable: a fetch that throws is a NetworkError saying where and what to check", async () => {
    const client = new SwitchboardClient({
      baseUrl: "http://127.0.0.1:9/",
      token: "t",
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    const error = await failure(client.sessionsList());
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ kind: "network", status: 0 });
    expect(error.message).toContain("cannot reach http://127.0.0.1:9");
    expect(error.message).toContain("npm start");
  });

  it("no answer within the timeout is a TimeoutError", async () => {
    const client = new SwitchboardClient({
      token: "t",
      timeoutMs: 20,
      fetch: (_input, init) =>
        new Promise((_resolve, reject) =>
          init.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
        ),
    });
    const error = await failure(client.healthz());
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ kind: "timeout", status: 0 });
  });

  it("a 200 that is not JSON says the URL may be wrong", async () => {
    const error = await failure(answering(() => new Response("<html>hello</html>")).healthz());
    expect(error).toMatchObject({ kind: "http", code: "not_json", status: 200 });
  });
});
