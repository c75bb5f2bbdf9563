import { describe, expect, it } from "vitest";
import type { CompactionAnswer } from "../../../src/session/api";
import {
  ADMIN,
  call,
  createSession,
  importMessages,
  msg,
  sendMessage,
  sessionPath,
  transcript,
  uid,
  waitRun,
} from "../../support";

interface Page {
  messages: { content: unknown }[];
  hasMore: boolean;
  nextOffset?: number;
  totalMessages: number;
  historyGap?: true;
}

const history = async (key: string, query: string) => {
  const page = await call<Page>("GET", sessionPath(key, `/history?${query}`), { token: ADMIN });
  expect(page.status, page.text).toBe(200);
  return page.json;
};

describe("a history page reaching messages maxMessages trimmed (SPEC §23, §13's historyGap)", () => {
  it("says so, keeps the total, and pages no further than the oldest kept message", async () => {
    // Agent "trimmed" keeps `maintenance.maxMessages: 4` (test/support/test-config.ts).
    const key = `agent:trimmed:gap-${uid()}`;
    await createSession({ agentId: "trimmed", key });
    await importMessages(
      key,
      Array.from({ length: 10 }, (_, n) =>
        msg(`${key}-${n}`, n % 2 === 0 ? "user" : "assistant", `turn ${n}`, n + 1),
      ),
    );
    const compacted = await call<CompactionAnswer>("POST", sessionPath(key, "/compact"), {
      token: ADMIN,
      body: {},
    });
    expect(compacted.json).toMatchObject({ compacted: true });
    // Before any trim, a page from the start has no gap.
    expect((await history(key, "limit=100")).historyGap).toBeUndefined();

    // A run's start applies the retention pass: what compaction summarized beyond the newest 4 leaves.
    await waitRun(await sendMessage(key, "next"));
    const kept = await transcript(key);
    expect(kept.length).toBeGreaterThanOrEqual(4);
    expect(kept.length).toBeLessThan(12);
    const trimmed = 12 - kept.length;

    // Asked from the start: every kept message, the gap said, the total still counting the trimmed.
    const all = await history(key, "limit=100");
    expect(all).toMatchObject({ historyGap: true, hasMore: false, totalMessages: 12 });
    expect(all.nextOffset).toBeUndefined();
    expect(all.messages.map((message) => message.content)).toEqual(kept.map((message) => message.content));

    // The newest two are all kept: no gap, and the next page is offered.
    const newest = await history(key, "limit=2");
    expect(newest).toMatchObject({ hasMore: true, nextOffset: 2 });
    expect(newest.historyGap).toBeUndefined();

    // A page straddling the oldest kept message returns what is left and stops there.
    const straddling = await history(key, `limit=2&offset=${kept.length - 1}`);
    expect(straddling).toMatchObject({ historyGap: true, hasMore: false });
    expect(straddling.messages).toHaveLength(1);

    // A page wholly inside the trimmed range is empty, and says why rather than offering more.
    const gone = await history(key, `limit=${trimmed}&offset=${kept.length}`);
    expect(gone).toMatchObject({ messages: [], historyGap: true, hasMore: false });
  });
});
