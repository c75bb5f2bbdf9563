import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  createSession,
  createSpawned,
  getSession,
  send,
  sendMessage,
  session,
  sessionPath,
  settleAll,
  spawnOk,
  storedRuns,
  stub,
  transcript,
  uid,
  waitRun,
} from "../support";
import { exchange, newCanary, scanObjects, scanShards } from "./canary";

type Erased = { deleted: true; erased: Record<string, number> };

/** The session's `erased` events as its log holds them. */
function erasedEvents(key: string): Promise<{ kind: string; data: unknown }[]> {
  return runInDurableObject(stub(key), (_instance, state) =>
    state.storage.sql
      .exec<{ kind: string; data: string }>("SELECT kind, data FROM event WHERE kind = 'erased'")
      .toArray()
      .map((row) => ({ kind: row.kind, data: JSON.parse(row.data) })),
  );
}

/** A session holding the canary in every place SPEC §23 names, and the sessions its text reached. */
async function canarySetup(canary: string) {
  const u = uid();
  const erased = `agent:main:er-a-${u}`;
  const partner = `agent:relay:er-r-${u}`;
  await createSession({ agentId: "main", key: erased });
  await createSession({ agentId: "relay", key: partner });
  // The person's own words, answered by its agent ("Got it: …").
  await waitRun(await sendMessage(erased, `my secret is ${canary}`));
  // A child spawned with the canary in its task: its task, reply and completion (back in `erased`).
  const { child } = await spawnOk(erased, { task: `look into ${canary}`, agentId: "research" });
  // Sent to a session that is not its child: the request, the partner's reply quoting it, two reply
  // steps, and the announce step quoting the original request, with the announce's reply.
  await exchange(erased, partner, `please remember ${canary}`);
  // And the erased session watches the partner.
  expect(await session(partner).watch(erased)).toMatchObject({ ok: true });
  await settleAll([erased, partner, child]);
  return { erased, partner, child };
}

const deleteErase = (key: string, token = ADMIN) =>
  call<Erased>("DELETE", `${sessionPath(key)}?erase=true`, { token });

describe("DELETE /v1/sessions/{key}?erase=true (SPEC §23)", () => {
  it("leaves no byte of the canary in any D1 table or involved object; counts per store; erased events", async () => {
    const canary = newCanary();
    const { erased, partner, child } = await canarySetup(canary);
    // The canary is everywhere first: the scan finds what it looks for.
    expect(Object.keys(await scanObjects([erased, partner, child], canary)).length).toBeGreaterThan(3);
    expect(Object.keys(await scanShards(canary))).toEqual(
      expect.arrayContaining([expect.stringMatching(/search_message$/)]),
    );
    const partnerRuns = (await storedRuns(partner)).length;
    expect(partnerRuns).toBe(3);

    const answer = await deleteErase(erased);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual({
      deleted: true,
      erased: {
        sessions: 1,
        children: 1,
        // The partner: the request, its reply, the reply step, its answer, the announce step and its reply.
        messages: 6,
        searchRows: 6,
        sent: 0,
        notices: 1,
        // No tool result, summary or owed entry of the partner quotes it (test/erasure/erase-quotes.test.ts).
        quotes: 0,
        summaries: 0,
        pending: 0,
      },
    });
    await settleAll([erased, partner, child]);

    expect(await scanObjects([erased, partner, child], canary)).toEqual({});
    expect(await scanShards(canary)).toEqual({});

    // The partner keeps its own history's shape, each copy `[erased]`, with one erased event, no text.
    const kept = await transcript(partner);
    expect(kept).toHaveLength(6);
    expect(kept.map((message) => message.content)).toEqual(Array(6).fill("[erased]"));
    expect(kept[0]?.provenance).toMatchObject({ kind: "inter_session", sourceSessionKey: erased });
    expect(await erasedEvents(partner)).toEqual([
      { kind: "erased", data: { sessionKey: erased, messages: 6 } },
    ]);
    expect((await getSession(erased)).status).toBe(404);
    expect((await getSession(child)).status).toBe(404);

    // Asking again: the session is gone, nothing more to erase.
    expect((await deleteErase(erased)).status).toBe(404);
  });

  it("resumes: a pass cut after a partner's copies were erased is finished by asking again", async () => {
    const canary = newCanary();
    const { erased, partner, child } = await canarySetup(canary);
    // The first step of an erasure the Worker died after: the partner's copies, not yet their search rows.
    const first = await session(partner).eraseCopies({ subjectKey: erased, sourceKeys: [erased, child] });
    expect(first).toMatchObject({ ok: true, value: { messages: 6, notices: 1 } });
    // The same step again changes nothing (idempotent), but still names the rows whose search rows go.
    const again = await session(partner).eraseCopies({ subjectKey: erased, sourceKeys: [erased, child] });
    expect(again).toMatchObject({ ok: true, value: { messages: 0, notices: 0, sent: 0 } });
    if (!again.ok) throw new Error("eraseCopies");
    expect(again.value.messageIds).toHaveLength(6);

    const answer = await deleteErase(erased);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.erased).toEqual({
      sessions: 1,
      children: 1,
      messages: 0,
      searchRows: 6,
      sent: 0,
      notices: 0,
      quotes: 0,
      summaries: 0,
      pending: 0,
    });
    await settleAll([erased, partner, child]);
    expect(await scanObjects([erased, partner, child], canary)).toEqual({});
    expect(await scanShards(canary)).toEqual({});
  });

  it("empties the sent records of turns handed to it, in its parent's object", async () => {
    const u = uid();
    const parent = `agent:relay:er-p-${u}`;
    const erased = `agent:relay:er-c-${u}`;
    await createSession({ agentId: "relay", key: parent });
    await createSpawned({ sessionKey: erased, agentId: "relay", spawnedBy: parent });
    const sent = await send(parent, {
      sessionKey: erased,
      message: "hello",
      idempotencyKey: `k-${u}`,
      timeoutSeconds: 5,
    });
    expect(sent).toMatchObject({ status: "ok" });
    await settleAll([parent, erased]);
    const sentTurns = () =>
      runInDurableObject(stub(parent), (_instance, state) =>
        state.storage.sql.exec<{ turn: string | null }>("SELECT turn FROM sent").toArray(),
      );
    expect((await sentTurns())[0]?.turn).toEqual(expect.any(String));

    const answer = await deleteErase(erased);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.erased).toMatchObject({ sessions: 1, children: 0, sent: 1 });
    // The key stays for its dedupe window; the text is gone.
    expect(await sentTurns()).toEqual([{ turn: null }]);
  });

  it("erase is the operator's: an agent token asking it is refused 403 naming erase, nothing deleted", async () => {
    const key = `agent:main:er-tok-${uid()}`;
    await createSession({ agentId: "main", key });
    const refused = await deleteErase(key, AGENT_TOKENS.main);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("erase");
    expect((await getSession(key)).status).toBe(200);
    const bad = await call("DELETE", `${sessionPath(key)}?erase=yes`, { token: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("erase");
    // A plain delete answers as before.
    const plain = await call("DELETE", sessionPath(key), { token: AGENT_TOKENS.main });
    expect(plain.json).toEqual({ deleted: true });
  });
});
