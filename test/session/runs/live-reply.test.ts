import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { PlatformLive } from "../../../src/platforms/live";
import { draftStep, EDIT_EVERY_MS, LiveReply } from "../../../src/session/runs/live-reply";
import { liveDraft, saveLiveDraft } from "../../../src/session/store/live-drafts";
import { createSession, uid } from "../../support";
import { stub } from "../../support/sessions";

/**
 * The live side of a run (SPEC §21 Live) against a platform that records what it is asked and when, by
 * the object's clock as the run's events give it (`now` below): no test waits for time to pass.
 */
class RecordingPlatform implements PlatformLive {
  readonly calls: { kind: string; at: number; text?: string; id?: string }[] = [];
  now = 0;
  typingEveryMs = 4_000;
  typingAnswer: boolean | "throw" = true;
  #next = 1;

  async typing() {
    this.calls.push({ kind: "typing", at: this.now });
    if (this.typingAnswer === "throw") throw new Error("403 Forbidden: bot was blocked by the user");
    return this.typingAnswer;
  }
  async placeholder() {
    this.calls.push({ kind: "placeholder", at: this.now });
    return `m${this.#next++}`;
  }
  async draft(text: string) {
    this.calls.push({ kind: "draft", at: this.now, text });
    return `m${this.#next++}`;
  }
  async edit(id: string, text: string) {
    this.calls.push({ kind: "edit", at: this.now, text, id });
    return true;
  }
}

/** Lets a platform call the driver started finish (a resolved promise's continuations), not time pass. */
const callsDone = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Runs `body` with a session object's SQLite (its migrations applied, table `live_draft` among them). */
/** A session object's SQLite: created first, as an object holds no schema until its session exists. */
async function withSql<T>(body: (sql: SqlStorage) => Promise<T>): Promise<T> {
  const key = `agent:main:live-${uid()}`;
  await createSession({ key });
  return runInDurableObject(stub(key), (_instance, state) => body(state.storage.sql));
}

/** Feeds `live` the reply's pieces, each at its time on the object's clock. */
async function stream(live: LiveReply, platform: RecordingPlatform, pieces: [number, string][]) {
  for (const [at, text] of pieces) {
    platform.now = at;
    live.stream({ text }, at);
    await callsDone();
  }
}

describe("a run's live reply: typing, the draft, edits at most once a second", () => {
  it("draftStep: nothing to show waits; no draft posts one; an edit waits a second after the last", () => {
    expect(draftStep(undefined, "  ", 0)).toBe("wait");
    expect(draftStep(undefined, "Hel", 0)).toBe("draft");
    const draft = { messageId: "1", editedAt: 5_000, shown: "Hel" };
    expect(draftStep(draft, "Hello", 5_000 + EDIT_EVERY_MS - 1)).toBe("wait");
    expect(draftStep(draft, "Hello", 5_000 + EDIT_EVERY_MS)).toBe("edit");
    expect(draftStep(draft, "Hel", 9_000)).toBe("wait");
  });

  it("edit: one draft, then edits no two within a second, each showing the text so far", async () => {
    const platform = new RecordingPlatform();
    await withSql(async (sql) => {
      const live = new LiveReply(platform, true, sql, { runId: "run-1", chat: "tg-live:1" });
      live.start(0);
      await callsDone();
      await stream(live, platform, [
        [100, "One "],
        [400, "two "],
        [900, "three "],
        [1_150, "four "],
        [1_500, "five "],
        [2_200, "six "],
        [2_300, "seven"],
      ]);
      await live.settle();
      expect(liveDraft(sql, "run-1")).toEqual({
        messageId: "m1",
        editedAt: 2_200,
        shown: "One two three four five six ",
      });
    });
    const writes = platform.calls.filter((call) => call.kind === "draft" || call.kind === "edit");
    expect(writes).toEqual([
      { kind: "draft", at: 100, text: "One " },
      { kind: "edit", at: 1_150, text: "One two three four ", id: "m1" },
      { kind: "edit", at: 2_200, text: "One two three four five six ", id: "m1" },
    ]);
    for (const [index, write] of writes.entries())
      if (index > 0) expect(write.at - (writes[index - 1]?.at ?? 0)).toBeGreaterThanOrEqual(EDIT_EVERY_MS);
  });

  it("typing: at the start, renewed by the run's events when due, never after the run is over", async () => {
    const platform = new RecordingPlatform();
    await withSql(async (sql) => {
      const live = new LiveReply(platform, false, sql, { runId: "run-2", chat: "tg-live:1" });
      live.start(0);
      await callsDone();
      for (const at of [1_000, 3_999, 4_000, 5_000, 8_100]) {
        platform.now = at;
        live.progress(at);
        await callsDone();
      }
      await live.settle();
      platform.now = 20_000;
      live.progress(20_000);
      live.stream({ text: "late" }, 20_000);
      await callsDone();
    });
    expect(platform.calls).toEqual([
      { kind: "typing", at: 0 },
      { kind: "typing", at: 4_000 },
      { kind: "typing", at: 8_100 },
    ]);
  });

  it("edit: typing is not renewed once the reply's text shows", async () => {
    const platform = new RecordingPlatform();
    await withSql(async (sql) => {
      const live = new LiveReply(platform, true, sql, { runId: "run-6", chat: "tg-live:1" });
      live.start(0);
      await callsDone();
      await stream(live, platform, [
        [4_500, "One "],
        [9_000, "two "],
      ]);
      // A tool call's event, long after the last typing: the text shows, so no typing.
      platform.now = 9_500;
      live.progress(9_500);
      await callsDone();
      await live.settle();
    });
    expect(platform.calls.map((call) => [call.kind, call.at])).toEqual([
      ["typing", 0],
      ["draft", 4_500],
      ["edit", 9_000],
    ]);
  });

  it("off: the reply's pieces post nothing while the run works", async () => {
    const platform = new RecordingPlatform();
    await withSql(async (sql) => {
      const live = new LiveReply(platform, false, sql, { runId: "run-3", chat: "tg-live:1" });
      live.start(0);
      await stream(live, platform, [
        [100, "One "],
        [1_500, "two "],
      ]);
      await live.settle();
      expect(liveDraft(sql, "run-3")).toBeUndefined();
    });
    expect(platform.calls.map((call) => call.kind)).toEqual(["typing"]);
  });

  it("a refused or failing typing call never fails the run: the placeholder stands in for it", async () => {
    for (const answer of [false, "throw"] as const) {
      const platform = new RecordingPlatform();
      platform.typingAnswer = answer;
      await withSql(async (sql) => {
        const live = new LiveReply(platform, true, sql, { runId: "run-4", chat: "tg-live:1" });
        live.start(0);
        await live.settle();
        // A throw stops the attempt before its placeholder; a refusal is answered by one.
        expect(liveDraft(sql, "run-4")?.messageId).toBe(answer === false ? "m1" : undefined);
      });
    }
  });

  it("a resumed run (after an eviction) goes on editing its draft, never posting a second message", async () => {
    const platform = new RecordingPlatform();
    await withSql(async (sql) => {
      saveLiveDraft(sql, "run-5", { messageId: "m-before", editedAt: 0, shown: "One " });
      const live = new LiveReply(platform, true, sql, { runId: "run-5", chat: "tg-live:1" });
      platform.typingAnswer = false;
      live.start(10_000);
      await callsDone();
      await stream(live, platform, [[10_100, "One two"]]);
      await live.settle();
    });
    expect(platform.calls.filter((call) => call.kind !== "typing")).toEqual([
      { kind: "edit", at: 10_100, text: "One two", id: "m-before" },
    ]);
  });
});
