import { describe, expect, it } from "vitest";
import { getSession, inbound, postInbound, uid } from "../../support";

describe("POST /v1/channels/{name}/messages dispatches on the channel's platform", () => {
  it("a platform channel takes only its platform's scheme: §8's signed JSON is 401 and writes nothing", async () => {
    for (const channel of ["tg-in", "slack-in", "discord-in"]) {
      const sender = `s${uid()}`;
      const posted = await postInbound(
        channel,
        inbound({ chatId: sender, senderId: sender, messageId: `m-${uid()}` }),
      );
      expect(posted.status, channel).toBe(401);
      expect((await getSession(`agent:main:${channel}:direct:${sender}`)).status).toBe(404);
    }
  });

  it("a webhook channel is §8's, as before", async () => {
    const sender = `s${uid()}`;
    const posted = await postInbound(
      "webchat",
      inbound({ chatId: sender, senderId: sender, messageId: `m-${uid()}` }),
    );
    expect(posted.status).toBe(202);
    expect(posted.json).toMatchObject({
      status: "accepted",
      sessionKey: `agent:main:webchat:direct:${sender}`,
    });
  });
});
