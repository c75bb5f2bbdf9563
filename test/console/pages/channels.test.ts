import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { noteInbound, writeBotIdentity } from "../../../src/index-db/channel-state";
import { deliveryIndexUpsert } from "../../../src/index-db/deliveries";
import { AGENT_TOKENS, call, createSession, uid } from "../../support";
import { ESCAPED, fragment, SCRIPT } from "../../support/console";
import { grantFor } from "../../support/grants";
import { shardOf } from "../../support/shards";

// The console's channel view (SPEC §21 "The console shows each channel's state"). tg-console is this
// file's alone (channels-config.ts): collect, 800 ms, streaming off; slack-bot answers auth.test.

describe("console: channels", () => {
  it("lists every channel with its platform, agent, bot, last inbound, settings and failed posts", async () => {
    await writeBotIdentity(env.DB, "tg-console", "fp", { id: "7001", username: "console_bot" }, Date.now());
    await noteInbound(env.DB, "tg-console", "context", Date.now() - 120_000);
    const sessionKey = `agent:main:tg-console:direct:${uid()}`;
    const deliveryId = `failed-${uid()}`;
    await deliveryIndexUpsert(shardOf(sessionKey), {
      deliveryId,
      kind: "reply",
      sessionKey,
      agentId: "main",
      target: "tg-console:5",
      status: "failed",
      attempts: 1,
      lastError: `Telegram sendMessage: Forbidden: ${SCRIPT}`,
      createdAt: Date.now(),
      updatedAt: Date.now(),
    }).run();

    const page = await fragment("/channels");
    expect(page.status, page.text).toBe(200);
    const html = page.html;
    expect(html).toContain("<h1>Channels</h1>");
    const listed = [...html.matchAll(/<tr data-channel="([^"]+)"/g)].map((m) => m[1]);
    for (const name of ["tg-console", "slack-bot", "discord-bot", "webchat"]) expect(listed).toContain(name);
    expect(listed).toEqual([...listed].sort());
    const row = html.slice(html.indexOf('<tr data-channel="tg-console">'));
    const cells = row.slice(0, row.indexOf("</tr>"));
    expect(cells).toContain('<th scope="row" data-label="Channel"><a href="/console/channels/tg-console">');
    expect(cells).toContain('<td data-label="Platform">telegram</td>');
    expect(cells).toContain('<td data-label="Agent">main</td>');
    expect(cells).toContain('<span title="7001">@console_bot</span>');
    expect(cells).toMatch(/<td data-label="Last inbound"><time [^>]+>2 min ago<\/time> \(context\)<\/td>/);
    expect(cells).toContain('<td data-label="Busy">collect (800 ms)</td>');
    expect(cells).toContain('<td data-label="Streaming">off</td>');
    expect(cells).toContain('<td data-label="Groups">mention</td>');
    expect(cells).toContain('<td data-label="Failed posts">1</td>');
    expect(cells).toContain(`Telegram sendMessage: Forbidden: ${ESCAPED}`);
    expect(html).not.toContain(SCRIPT);
    // A webhook channel has no bot or streaming of a platform's.
    const webchat = html.slice(html.indexOf('<tr data-channel="webchat">'));
    expect(webchat.slice(0, webchat.indexOf("</tr>"))).toContain('<td data-label="Platform">webhook</td>');
  });

  it("one channel: its settings, our state and the platform's view, as channels status has them", async () => {
    const page = await fragment("/channels/slack-bot");
    expect(page.status, page.text).toBe(200);
    expect(page.html).toContain("<h1>Channel slack-bot</h1>");
    const view = page.html.slice(page.html.indexOf('<section class="region" id="platform-view"'));
    expect(view).toContain('<dl class="kv"><dt>team</dt><dd>Switchboard Test</dd>');
    expect(view).toContain("<dt>user</dt><dd>switchboard</dd>");
    expect(page.html).toContain("<code>/v1/channels/slack-bot/messages</code>");
    expect(page.html).not.toContain(env.TEST_SLACK_BOT_TOKEN);

    const webhook = await fragment("/channels/webchat");
    expect(webhook.html).toContain("there is no platform to ask");
    // The platform's refusal is shown in its words; ours is still there.
    const console = await fragment("/channels/tg-console");
    expect(console.status).toBe(200);
    expect(console.html).toContain('<section class="region" id="ours"');
    expect(console.html).toMatch(/<dt>error<\/dt><dd>Telegram getWebhookInfo: [^<]+<\/dd>/);
  });

  it("is the operator's: grants and agent tokens are 403, an unknown channel 404; the pages are shells", async () => {
    const sessionKey = `agent:main:console-${uid()}`;
    await createSession({ key: sessionKey });
    const { token } = await grantFor(sessionKey, ["read"]);
    expect((await fragment("/channels", token)).status).toBe(403);
    expect((await fragment("/channels/slack-bot", token)).status).toBe(403);
    expect((await fragment("/channels", AGENT_TOKENS.main)).status).toBe(403);
    const unknown = await fragment("/channels/no-such-channel");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain('unknown channel "no-such-channel"');
    for (const [path, fragmentPath] of [
      ["/console/channels", "/console/fragments/channels"],
      ["/console/channels/slack-bot", "/console/fragments/channels/slack-bot"],
    ] as const) {
      const shell = await call("GET", path);
      expect(shell.status).toBe(200);
      expect(shell.text).toContain(`data-fragment="${fragmentPath}"`);
      expect(shell.text).toContain('<a href="/console/channels" data-operator');
    }
    expect((await call("GET", "/console/fragments/channels")).status).toBe(401);
  });
});
