import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  createSession,
  importMessages,
  msg,
  sendMessage,
  sessionPath,
  settleAll,
  stub,
  uid,
  waitRun,
} from "../support";
import { exchange, newCanary, scanObjects, scanShards } from "./canary";

// Issue 33: erasure reaches the erased text where other sessions derived copies of it without its
// provenance — a tool result that read its history, a compaction summary, an entry still owed — by
// the exact text, replaced by `[erased]` (SPEC §23). A summary built from an erased message is dropped.

const DAY = 86_400_000;

type Erased = { deleted: true; erased: Record<string, number> };

/** What a partner's object holds of the derived copies: its summary, its tool result, its owed entry. */
const derived = (key: string) =>
  runInDurableObject(stub(key), (_instance, state) => {
    const { sql } = state.storage;
    const one = <T>(query: string) => sql.exec<T & Record<string, SqlStorageValue>>(query).toArray()[0];
    return {
      summary: one<{ summary: string }>("SELECT summary FROM compaction WHERE id = 1")?.summary,
      toolResult: one<{ body: string }>("SELECT body FROM message WHERE role = 'toolResult'")?.body,
      owed: one<{ payload: string }>("SELECT payload FROM outbox WHERE dedupe_key LIKE 'turn:quote-%'")
        ?.payload,
      kept: one<{ payload: string }>(
        "SELECT payload FROM delivery WHERE delivery_id LIKE 'dlv_%' AND outbox_key LIKE 'turn:quote-%'",
      )?.payload,
      erasedEvents: sql
        .exec<{ data: string }>("SELECT data FROM event WHERE kind = 'erased'")
        .toArray()
        .map((row) => JSON.parse(row.data)),
    };
  });

/** A compaction summary written as compaction writes it, covering messages up to `throughSeq`. */
const summarize = (key: string, summary: string, throughSeq: number | "all") =>
  runInDurableObject(stub(key), (_instance, state) => {
    const { sql } = state.storage;
    const through =
      throughSeq === "all"
        ? sql.exec<{ n: number }>("SELECT MAX(seq) AS n FROM message").one().n
        : throughSeq;
    sql.exec(
      "INSERT OR REPLACE INTO compaction (id, operation_id, through_seq, summary, compacted_at) VALUES (1, ?, ?, ?, ?)",
      crypto.randomUUID(),
      through,
      summary,
      Date.now(),
    );
  });

describe("erasure of quoted text in other sessions' derived copies (SPEC §23)", () => {
  it("replaces exact quotes in a tool result, a summary and an owed entry; drops a summary built from it", async () => {
    const canary = newCanary();
    const u = uid();
    const erased = `agent:main:eq-e-${u}`;
    const partner = `agent:relay:eq-p-${u}`;
    const other = `agent:relay:eq-q-${u}`;
    await createSession({ agentId: "main", key: erased });
    await createSession({ agentId: "relay", key: partner });
    await createSession({ agentId: "relay", key: other });
    const words = `my secret is ${canary}`;
    await waitRun(await sendMessage(erased, words));
    // Both partners exchanged with it, with none of the canary in what was routed to them.
    await exchange(erased, partner, "hello there from the erased session");
    await exchange(erased, other, "hello again from the erased session");
    // The partner read its history (a sessions_history result stored as a tool result, JSON in text).
    const history = { sessionKey: erased, messages: [{ role: "user", content: words }] };
    await importMessages(partner, [
      msg(`tr-${u}`, "toolResult", [{ type: "text", text: JSON.stringify(history) }], Date.now(), {
        toolCallId: `call-${u}`,
        toolName: "sessions_history",
      }),
    ]);
    await settleAll([erased, partner, other]);
    // The partner's summary predates the exchange (covers none of it) and quotes the words exactly; the
    // other's was built from the exchange, and paraphrases them ("the secret … was canary…").
    await summarize(partner, `Earlier the user said "${words}". The weather was fine.`, 0);
    await summarize(other, `The erased session's secret was ${canary.toUpperCase()}, it said.`, "all");
    // A turn the partner still owes a third session, quoting the words (due tomorrow: not sent yet).
    await runInDurableObject(stub(partner), (_instance, state) => {
      const turn = {
        targets: [`agent:main:x-${u}`],
        request: { runId: u, message: { text: `fwd: ${words}` } },
      };
      state.storage.sql.exec(
        "INSERT INTO outbox (kind, dedupe_key, payload, next_attempt_at) VALUES ('turn', ?, ?, ?)",
        `turn:quote-${u}`,
        JSON.stringify(turn),
        Date.now() + DAY,
      );
      // Its ledger record keeps the payload too, for an operator's retry.
      state.storage.sql.exec(
        `INSERT INTO delivery (delivery_id, kind, target, status, created_at, updated_at, outbox_kind, outbox_key, payload)
         VALUES (?, 'reply', ?, 'pending', ?, ?, 'turn', ?, ?)`,
        `dlv_${u}`,
        `agent:main:x-${u}`,
        Date.now(),
        Date.now(),
        `turn:quote-${u}`,
        JSON.stringify(turn),
      );
    });
    expect(Object.keys(await scanObjects([partner], canary)).sort()).toEqual([
      `${partner} compaction`,
      `${partner} delivery`,
      `${partner} message`,
      `${partner} outbox`,
    ]);

    const answer = await call<Erased>("DELETE", `${sessionPath(erased)}?erase=true`, { token: ADMIN });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.erased).toMatchObject({ sessions: 1, quotes: 1, summaries: 2, pending: 2 });

    // Not a byte of the canary in any object or D1 table, the paraphrase included (its summary dropped).
    expect(await scanObjects([erased, partner, other], canary)).toEqual({});
    expect(await scanObjects([other], canary.toUpperCase())).toEqual({});
    expect(await scanShards(canary)).toEqual({});
    const kept = await derived(partner);
    expect(kept.summary).toBe(`Earlier the user said "[erased]". The weather was fine.`);
    expect(JSON.parse(kept.toolResult ?? "{}").content[0].text).toBe(
      JSON.stringify({ sessionKey: erased, messages: [{ role: "user", content: "[erased]" }] }),
    );
    expect(JSON.parse(kept.owed ?? "{}").request.message.text).toBe("fwd: [erased]");
    expect(JSON.parse(kept.kept ?? "{}").request.message.text).toBe("fwd: [erased]");
    expect(kept.erasedEvents).toEqual([{ sessionKey: erased, messages: expect.any(Number) }]);
    expect(JSON.stringify(kept.erasedEvents)).not.toContain(canary);
    const dropped = await derived(other);
    expect(dropped.summary).toBe("[erased]");
    expect(dropped.erasedEvents).toHaveLength(1);
  });
});
