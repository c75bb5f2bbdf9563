import { describe, expect, it } from "vitest";
import { driveUntil, waitRun } from "../support";
import { postTelegram, tgId, tgUpdate } from "../support/platforms/inbound";
import { ledgerRows, platformCalls, platformScript } from "../support/platforms/outbound";

/**
 * Busy `queue` with live drafts (SPEC §21: "a chat's replies keep the order of its messages"; Live): the
 * first run ends without a draft (the chat refused each one), so its reply goes out through the delivery
 * ledger; the second run's first draft is posted only after that reply, never above it. Channel tg-live
 * (queue, the default; `streaming: "edit"`, the default; model `drip/600`).
 */
const ONE = "one alpha beta gamma delta epsilon zeta eta theta";
const TWO = "two iota kappa lambda mu nu xi omicron pi rho";
const methodOf = (path: string) => path.split("/").pop() ?? "";

describe("live drafts keep a chat's replies in order", () => {
  it("Telegram queue: run 2's first draft comes after run 1's reply delivered through the ledger", async () => {
    const user = tgId();
    // Run 1: typing answered, its three drafts refused (502): it ends owing its reply to the ledger.
    await platformScript(String(user), ["ok", "server_error", "server_error", "server_error"]);
    const send = async (text: string) => {
      const update = tgUpdate({
        chat: { id: user, type: "private" },
        from: { id: user, is_bot: false, first_name: "Ada" },
        text,
      });
      const posted = await postTelegram("tg-live", update);
      expect(posted.status, posted.text).toBe(202);
      return { runId: String(posted.json.runId), sessionKey: String(posted.json.sessionKey) };
    };
    const one = await send(ONE);
    const two = await send(TWO);
    expect(two.runId).not.toBe(one.runId);
    expect(await waitRun(one.runId)).toMatchObject({ status: "ok", reply: ONE });
    expect(await waitRun(two.runId)).toMatchObject({ status: "ok", reply: TWO });
    await driveUntil(
      [one.sessionKey],
      async () => {
        const rows = await ledgerRows(one.sessionKey, "tg-live");
        return rows.length === 2 && rows.every((row) => row.status === "delivered") ? rows : undefined;
      },
      "both replies delivered",
    );
    // Run 1's drafts were refused; its reply is the last `sendMessage` of its text (the ledger's post).
    const posts = (await platformCalls(String(user)))
      .filter((call) => methodOf(call.path) === "sendMessage")
      .map((call) => String(call.json.text));
    const oneAt = posts.lastIndexOf(ONE);
    const twoAt = posts.findIndex((text) => text.startsWith("two"));
    expect(oneAt, JSON.stringify(posts)).toBeGreaterThanOrEqual(0);
    expect(twoAt, JSON.stringify(posts)).toBeGreaterThan(oneAt);
  });
});
