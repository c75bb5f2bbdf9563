import { describe, expect, it } from "vitest";
import { byteSize } from "../../../src/console/pages/storage";
import { ADMIN, AGENT_TOKENS, call, createSession, importMessages, msg, uid } from "../../support";
import { fragment } from "../../support/console";
import { grantFor } from "../../support/grants";

interface Report {
  agents: {
    agentId: string;
    sessions: number;
    messages: number;
    objectBytes: number;
    wouldArchive: number;
    wouldDelete: number;
    largest: { sessionKey: string; bytes: number }[];
  }[];
  shards: { shard: string; bytes: number }[];
}

const count = (value: number) => value.toLocaleString("en-US");

/** The text of a facts entry: `<dt>name</dt><dd>value</dd>`. */
const fact = (html: string, name: string) => new RegExp(`<dt>${name}</dt><dd>([^<]*)</dd>`).exec(html)?.[1];

// SPEC §23 "The console shows the same figures" as `switchboard maintenance --dry-run`.
describe("console: storage", () => {
  it("is the operator's: a grant and an agent token are 403; the page is a shell linked from the nav", async () => {
    const sessionKey = `agent:main:storage-${uid()}`;
    await createSession({ key: sessionKey });
    const { token } = await grantFor(sessionKey, ["read"]);
    expect((await fragment("/storage", token)).status).toBe(403);
    expect((await fragment("/storage", AGENT_TOKENS.main)).status).toBe(403);
    const shell = await call("GET", "/console/storage");
    expect(shell.status).toBe(200);
    expect(shell.text).toContain('data-fragment="/console/fragments/storage"');
    expect(shell.text).toContain('<a href="/console/storage" data-operator="true">Storage</a>');
  });

  it("shows each agent's figures and each shard's size as the maintenance report has them", async () => {
    const key = `agent:quiet:storage-${uid()}`;
    await createSession({ agentId: "quiet", key });
    await importMessages(key, [
      msg("s1", "user", "hello", Date.now()),
      msg("s2", "assistant", "hi", Date.now()),
    ]);
    const report = (
      await call<Report>("POST", "/v1/maintenance", { token: ADMIN, body: { mode: "dry-run" } })
    ).json;
    const page = await fragment("/storage");
    expect(page.status, page.text).toBe(200);
    expect(page.html).toContain("<h1>Storage</h1>");
    const quiet = report.agents.find((agent) => agent.agentId === "quiet");
    expect(quiet?.sessions).toBeGreaterThanOrEqual(1);
    const section = page.html.slice(page.html.indexOf('data-agent="quiet"'));
    const own = section.slice(0, section.indexOf("</section>"));
    expect(fact(own, "Sessions")).toBe(count(quiet?.sessions ?? -1));
    expect(fact(own, "Messages")).toBe(count(quiet?.messages ?? -1));
    expect(fact(own, "Object storage")).toBe(byteSize(quiet?.objectBytes ?? -1));
    expect(fact(own, "Would delete")).toMatch(/^\d+ idle sessions?$/);
    for (const { sessionKey, bytes } of quiet?.largest ?? []) {
      const row = own.slice(own.indexOf(`<tr data-key="${sessionKey}">`));
      expect(row.slice(0, row.indexOf("</tr>"))).toContain(
        `<td class="num" data-label="Size">${byteSize(bytes)}</td>`,
      );
    }
    for (const agent of report.agents) expect(page.html).toContain(`data-agent="${agent.agentId}"`);
    for (const { shard } of report.shards) expect(page.html).toContain(`<tr data-shard="${shard}">`);
  });

  it("writes sizes as a person does", () => {
    expect(byteSize(812)).toBe("812 B");
    expect(byteSize(14_200)).toBe("14.2 KB");
    expect(byteSize(412_090_368)).toBe("412 MB");
    expect(byteSize(999_999)).toBe("1.0 MB");
    expect(byteSize(10_000_000_000)).toBe("10.0 GB");
  });
});
