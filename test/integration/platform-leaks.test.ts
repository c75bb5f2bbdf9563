import { describe, expect, it } from "vitest";
import { ADMIN, call, getSession, uid } from "../support";
import {
  postDiscord,
  postSlack,
  postTelegram,
  slackEvent,
  tgId,
  tgUpdate,
} from "../support/platforms/inbound";
import { ledgerRowOnce, platformCallsArrived, platformScript } from "../support/platforms/outbound";
import { platformSecrets } from "./platform-leaks";

/**
 * The chat platforms' inbound route in the leak matrix (issue 28's, leak-matrix.test.ts): a forged or
 * missing signature is 401 and writes nothing (no session under the key it would have made) — and no bot token or
 * signing secret reaches an answer or a delivery's lastError, even when the platform refuses the reply.
 */
const unsigned = (channel: string, body: unknown) =>
  call<Record<string, unknown>>("POST", `/v1/channels/${channel}/messages`, { body });

describe("the leak matrix: chat platform channels", () => {
  it("a forged or missing signature on each platform is 401 and writes nothing", async () => {
    const secrets = await platformSecrets();
    const user = tgId();
    const telegram = tgUpdate({ chat: { id: user, type: "private" }, from: { id: user, is_bot: false } });
    const slackUser = `U${uid().toUpperCase()}`;
    const slack = slackEvent({ channel: "D0LEAK", channel_type: "im", user: slackUser });
    const discordUser = String(tgId());
    const discord = {
      id: String(tgId()),
      type: 2,
      token: `interaction-token-${uid()}`,
      version: 1,
      channel_id: `dm${discordUser}`,
      channel: { id: `dm${discordUser}`, type: 1 },
      user: { id: discordUser, username: "eve" },
      data: { id: "cmd-1", name: "ask", type: 1, options: [{ name: "text", type: 3, value: "hi" }] },
    };
    const attempts = [
      postTelegram("tg-bot", telegram, { secret: "forged-secret-token" }),
      unsigned("tg-bot", telegram),
      postSlack("slack-bot", slack, { secret: "forged-signing-secret" }),
      unsigned("slack-bot", slack),
      postDiscord("discord-bot", discord, { tamper: true }),
      postDiscord("discord-bot", discord, { signature: "00".repeat(64) }),
      unsigned("discord-bot", discord),
    ];
    for (const answer of await Promise.all(attempts)) {
      expect(answer.status, answer.text).toBe(401);
      for (const secret of secrets) expect(answer.text).not.toContain(secret);
    }
    for (const key of [
      `agent:main:tg-bot:direct:${user}`,
      `agent:main:slack-bot:direct:${slackUser.toLowerCase()}`,
      `agent:main:discord-bot:direct:${discordUser}`,
    ])
      expect((await getSession(key)).status, key).toBe(404);
  });

  it("a reply the platform refuses fails without its bot token in lastError or the deliveries list", async () => {
    const secrets = await platformSecrets();
    const user = tgId();
    // The chat's first call is the run's typing (SPEC §21 Live); its reply is the second.
    await platformScript(String(user), ["ok", "blocked"]);
    const posted = await postTelegram(
      "tg-bot",
      tgUpdate({ chat: { id: user, type: "private" }, from: { id: user, is_bot: false }, text: "hi" }),
    );
    expect(posted.status, posted.text).toBe(202);
    await platformCallsArrived(String(user), 2);
    const key = String(posted.json.sessionKey);
    const row = await ledgerRowOnce(key, "tg-bot", (r) => r.status === "failed", "the refused reply failed");
    expect(row.last_error).toContain("Forbidden: bot was blocked by the user");
    const listed = await call("GET", "/v1/deliveries?limit=200", { token: ADMIN });
    expect(listed.status).toBe(200);
    for (const secret of secrets) {
      expect(row.last_error).not.toContain(secret);
      expect(row.payload ?? "").not.toContain(secret);
      expect(listed.text).not.toContain(secret);
    }
  });
});
