import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, call } from "../../support";
import { hostileSession, sessionFragment } from "../../support/console";

/** The Content-Security-Policy of a response, which every console response must carry. */
async function policyOf(path: string, token?: string): Promise<{ status: number; csp: string | null }> {
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  const response = await exports.default.fetch(`http://switchboard.test${path}`, { headers });
  await response.arrayBuffer();
  return { status: response.status, csp: response.headers.get("Content-Security-Policy") };
}

describe("console assets: the icon, the script and the stylesheet, under a strict CSP", () => {
  it("answers /favicon.ico with its icon, which every console page names", async () => {
    const icon = await exports.default.fetch("http://switchboard.test/favicon.ico");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("Content-Type")).toBe("image/svg+xml");
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    const shell = await call("GET", "/console/sessions");
    expect(shell.text).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml"/>');
  });

  it("serves data-free shells and its own assets, each under a strict CSP, also on errors", async () => {
    const key = await hostileSession();
    const shell = await call("GET", `/console/sessions/${encodeURIComponent(key)}?view=exact`);
    expect(shell.status).toBe(200);
    // The shell names the fragment to fetch and holds nothing of the session's.
    expect(shell.text).toContain(
      `data-fragment="/console/fragments/sessions/${encodeURIComponent(key)}?view=exact"`,
    );
    expect(shell.text).not.toContain("alert(1)");
    const assets = [...shell.text.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets).toHaveLength(3);
    for (const asset of assets) {
      const served = await call("GET", asset ?? "");
      expect(served.status).toBe(200);
      expect(served.text.length).toBeGreaterThan(500);
    }
    // The script's own import, served as text too (not bundled into the Worker as code), asked for by
    // its versioned URL so the two always come from one deploy.
    const main = await call("GET", assets.find((url) => url?.includes("console.js")) ?? "");
    const liveUrl = assets.find((url) => url?.includes("console-live.js")) ?? "";
    expect(main.text).toContain(`from "./console-live.js?v=${liveUrl.split("?v=")[1]}"`);
    const live = await call("GET", liveUrl);
    expect(live.text).toContain("export function follow(");
    // Only names of the console's files are assets; a version not this text's own is not cached for good.
    for (const name of ["constructor", "__proto__", "toString", "nope.js"])
      expect((await call("GET", `/console/assets/${name}`)).status).toBe(404);
    const stale = await exports.default.fetch("http://switchboard.test/console/assets/console.js?v=0000");
    await stale.arrayBuffer();
    expect(stale.headers.get("Cache-Control")).toBe("no-cache");
    const versioned = await exports.default.fetch(`http://switchboard.test${assets[0]}`);
    await versioned.arrayBuffer();
    expect(versioned.headers.get("Cache-Control")).toContain("immutable");
    const cases = [
      await policyOf("/console"),
      await policyOf(assets[0] ?? ""),
      await policyOf("/console/fragments/whoami", ADMIN),
      await policyOf("/console/fragments/whoami"),
      await policyOf("/console/fragments/whoami", "wrong-token"),
      await policyOf("/console/no-such-page"),
      await policyOf(sessionFragment(key), ADMIN),
    ];
    expect(cases.map((entry) => entry.status)).toEqual([200, 200, 200, 401, 401, 404, 200]);
    for (const { csp } of cases) {
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("require-trusted-types-for 'script'");
      expect(csp).not.toContain("unsafe-inline");
    }
  });
});
