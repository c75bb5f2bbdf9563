import { describe, expect, it } from "vitest";
import { runCli } from "../../../packages/cli/src/main";
import type { CompactionAnswer } from "../../../src/session/api";
import { recordingFetch, testClient } from "../../client/fixtures";
import {
  ADMIN,
  AGENT_TOKENS,
  type ApiError,
  call,
  createSession,
  getSession,
  importMessages,
  msg,
  sessionPath,
  transcript,
  uid,
} from "../../support";

/** Four turns (user, assistant), as imported. */
const fourTurns = (marker: string) =>
  Array.from({ length: 8 }, (_, n) =>
    msg(`${marker}-${n}`, n % 2 === 0 ? "user" : "assistant", `${marker} ${n}`, n + 1),
  );

const compact = (key: string, body: unknown = {}, token = ADMIN) =>
  call<CompactionAnswer & ApiError>("POST", sessionPath(key, "/compact"), {
    ...(token ? { token } : {}),
    body,
  });

describe("POST /v1/sessions/{key}/compact (SPEC §20)", () => {
  it("compacts on demand even a session that fits, keeping the newest turns; history and export unchanged", async () => {
    const key = `agent:main:api:compact-${uid()}`;
    await createSession({ agentId: "main", key });
    const messages = fourTurns(key);
    await importMessages(key, messages);

    const first = await compact(key);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({
      compacted: true,
      operationId: expect.any(String),
      summarizedMessages: 4,
      keptMessages: 4,
      compactionCount: 1,
    });
    // Again: what is left uncompacted (two turns) keeps its newest one.
    expect((await compact(key)).json).toMatchObject({
      compacted: true,
      summarizedMessages: 2,
      keptMessages: 2,
      compactionCount: 2,
    });
    expect((await compact(key)).json).toEqual({
      compacted: false,
      reason: "nothing older than the newest turn to summarize",
      compactionCount: 2,
    });
    expect(await transcript(key)).toEqual(messages);
    expect((await getSession(key)).json.compactionCount).toBe(2);
  });

  it("bad body 400 naming the field; unknown session 404; no token 401; another agent's token 403", async () => {
    const key = `agent:main:api:compact-${uid()}`;
    await createSession({ agentId: "main", key });
    const bad = await compact(key, { keep: 3 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain("keep");
    expect((await compact(key, [])).json.error.message).toContain("body");
    expect((await compact(`agent:main:api:missing-${uid()}`)).status).toBe(404);
    expect((await compact(key, {}, "")).status).toBe(401);
    expect((await compact(key, {}, AGENT_TOKENS.research)).status).toBe(403);
    expect((await compact(key, {}, AGENT_TOKENS.main)).status).toBe(200);
  });

  it("a model that fails leaves the session as it was: compacted false with the reason, no count", async () => {
    const key = `agent:model-500:api:compact-${uid()}`;
    await createSession({ agentId: "model-500", key });
    await importMessages(key, fourTurns(key));
    const failed = await compact(key);
    expect(failed.status).toBe(200);
    expect(failed.json).toEqual({
      compacted: false,
      reason: expect.stringMatching(/^the model failed: .*500/),
      compactionCount: 0,
    });
    const row = (await getSession(key)).json;
    expect(row).not.toHaveProperty("compactionCount");
    expect(row.stateVersion).toBe(1 + 8);
  });

  it("the client's compact(key) and `switchboard compact <session>`", async () => {
    const key = `agent:main:api:compact-${uid()}`;
    await createSession({ agentId: "main", key });
    await importMessages(key, fourTurns(key));
    const { client, requests } = testClient({ token: ADMIN });
    expect(await client.compact(key)).toMatchObject({ compacted: true, compactionCount: 1 });
    expect(requests.at(-1)).toMatchObject({
      method: "POST",
      path: `/v1/sessions/${key}/compact`,
      body: "{}",
    });

    const out: string[] = [];
    const io = {
      env: { SWITCHBOARD_URL: "http://switchboard.test", SWITCHBOARD_TOKEN: ADMIN },
      stdout: (text: string) => out.push(text),
      stderr: () => {},
      stderrIsTTY: false,
      onInterrupt: () => () => {},
      readFile: async () => "",
      writeFile: async () => {},
      fetch: recordingFetch().fetch,
    };
    expect(await runCli(["compact", key], io)).toBe(0);
    expect(out.join("")).toBe(
      `compacted ${key}: 2 message(s) summarized, 2 kept verbatim; 2 compaction(s) so far\n`,
    );
    out.length = 0;
    expect(await runCli(["compact", key], io)).toBe(1);
    expect(out.join("")).toBe("not compacted: nothing older than the newest turn to summarize\n");
    expect(await runCli(["compact", `agent:main:api:missing-${uid()}`], io)).toBe(4);
  });
});
