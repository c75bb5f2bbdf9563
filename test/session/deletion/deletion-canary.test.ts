import { describe, expect, it } from "vitest";
import { newCanary, scanObjects, scanShards } from "../../erasure/canary";
import { ADMIN, call, createSession, sendMessage, sessionPath, settleAll, uid, waitRun } from "../../support";

// Issue 33's target for a plain `DELETE /v1/sessions/{key}`: the session's own text leaves no byte in
// its object nor in any D1 table of any shard (FTS shadow tables included, read as bytes). Only its own
// stores: another session it wrote to keeps its copy in its own transcript and search rows after a plain
// delete (that session's history is its own); removing those copies is what erasure (`?erase=true`,
// test/erasure/erase-session.test.ts) is for.
describe("a plain deletion leaves no byte of the session's text (SPEC §23)", () => {
  it("finds a canary the session wrote in no D1 table and nowhere in its object", async () => {
    const canary = newCanary();
    const key = `agent:main:deleted-canary-${uid()}`;
    await createSession({ agentId: "main", key });
    // The person's words and the agent's answer quoting them ("Got it: …"), indexed and searchable.
    await waitRun(await sendMessage(key, `my secret is ${canary}`));
    await settleAll([key]);
    // The scan finds what it looks for first: the transcript, the index row's preview, the search rows.
    expect(Object.keys(await scanObjects([key], canary))).toEqual(expect.arrayContaining([`${key} message`]));
    expect(Object.keys(await scanShards(canary))).toEqual(
      expect.arrayContaining([expect.stringMatching(/search_message$/)]),
    );

    const deleted = await call("DELETE", sessionPath(key), { token: ADMIN });
    expect(deleted.status, deleted.text).toBe(200);

    expect(await scanShards(canary)).toEqual({});
    expect(await scanObjects([key], canary)).toEqual({});
  });
});
