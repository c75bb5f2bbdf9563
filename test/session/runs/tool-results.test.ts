import { describe, expect, it } from "vitest";
import { createSession, sendMessage, uid, waitRun } from "../../support";

describe("a tool's result as a run's model reads it", () => {
  it("is the page of sessions_history as JSON data: its messages an array, as the tool answers them", async () => {
    const key = `agent:spawner:history-tool-${uid()}`;
    await createSession({ agentId: "spawner", key });
    const marker = `hello ${uid()}`;
    expect(await waitRun(await sendMessage(key, marker))).toMatchObject({ status: "ok" });

    const run = await waitRun(await sendMessage(key, "read my history"));
    expect(run).toMatchObject({ status: "ok" });
    const reply = String(run.reply);
    expect(reply.startsWith("history: ")).toBe(true);
    const result = JSON.parse(reply.slice("history: ".length));
    expect(result).toMatchObject({ sessionKey: key, hasMore: false });
    expect(Array.isArray(result.messages)).toBe(true);
    expect(JSON.stringify(result.messages)).toContain(marker);
    expect(result.messages.length).toBeGreaterThanOrEqual(2);
  });
});
