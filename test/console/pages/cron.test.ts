import { describe, expect, it } from "vitest";
import { ADMIN, AGENT_TOKENS, call, createSession, driveUntil, uid } from "../../support";
import { ESCAPED, fragment, SCRIPT } from "../../support/console";
import { grantFor } from "../../support/grants";

// The console's schedules pages (SPEC §22 "a console page"): every agent's jobs, one job with its runs.

async function addJob(body: Record<string, unknown>) {
  const added = await call<{ jobId: string }>("POST", "/v1/cron/jobs", { token: ADMIN, body });
  expect(added.status, added.text).toBe(201);
  return added.json;
}

describe("console: schedules", () => {
  it("lists each agent's jobs with schedule, target, delivery and next run; one job shows its runs", async () => {
    const daily = `daily-${uid()}`;
    const hourly = `hourly-${uid()}`;
    await addJob({
      jobId: daily,
      agentId: "main",
      name: `Deploys ${SCRIPT}`,
      schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Berlin" },
      payload: { kind: "agentTurn", message: "summarize the deploys" },
      delivery: { mode: "none" },
    });
    await addJob({
      jobId: hourly,
      agentId: "research",
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: { kind: "systemEvent", text: "tick" },
      sessionTarget: "main",
    });

    const page = await fragment("/cron");
    expect(page.status, page.text).toBe(200);
    expect(page.html).toContain("<h1>Schedules</h1>");
    const row = (id: string) => {
      const start = page.html.indexOf(`<tr data-job="${id}">`);
      expect(start, id).toBeGreaterThan(-1);
      return page.html.slice(start, page.html.indexOf("</tr>", start));
    };
    const first = row(`main/${daily}`);
    expect(first).toContain(`<a href="/console/cron/main/${daily}">Deploys ${ESCAPED} (${daily})</a>`);
    expect(first).toContain('<td data-label="Schedule">0 9 * * 1-5 (Europe/Berlin)</td>');
    expect(first).toContain('<td data-label="Target">isolated</td>');
    expect(first).toContain('<td data-label="Delivery">none</td>');
    expect(first).toMatch(
      /<td data-label="Next run"><time [^>]+>in (\d+ (min|h)|1 day|\d days|under a minute)<\/time><\/td>/,
    );
    expect(first).toContain('<td data-label="Last run"><span class="muted">never</span></td>');
    const second = row(`research/${hourly}`);
    expect(second).toContain('<td data-label="Schedule">every 1h</td>');
    expect(second).toContain('<td data-label="Target">main</td>');
    expect(page.html).not.toContain(SCRIPT);

    // Fired now: the job's page shows the run, its status and its session.
    const ran = await call<{ runId: string }>("POST", `/v1/cron/jobs/${daily}/run?agentId=main`, {
      token: ADMIN,
    });
    const sessionKey = `agent:main:cron:${daily}:run:${ran.json.runId}`;
    const job = await driveUntil(
      [sessionKey],
      async () => {
        const answer = await fragment(`/cron/main/${daily}`);
        return answer.html.includes("status-ok") ? answer : undefined;
      },
      "the run to end",
    );
    expect(job.html).toContain(`<h1>Job Deploys ${ESCAPED}</h1>`);
    expect(job.html).toContain("<dt>Does</dt><dd>a turn: summarize the deploys</dd>");
    expect(job.html).toContain(`<tr data-run="${ran.json.runId}">`);
    expect(job.html).toContain(`href="/console/sessions/${encodeURIComponent(sessionKey)}"`);
  });

  it("is the operator's: grants and agent tokens are 403, an unknown job 404; the pages are shells", async () => {
    const sessionKey = `agent:main:console-${uid()}`;
    await createSession({ key: sessionKey });
    const { token } = await grantFor(sessionKey, ["read"]);
    expect((await fragment("/cron", token)).status).toBe(403);
    expect((await fragment("/cron", AGENT_TOKENS.main)).status).toBe(403);
    expect((await fragment("/cron/main/nope", AGENT_TOKENS.main)).status).toBe(403);
    const unknown = await fragment("/cron/main/no-such-job");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain('no job "no-such-job" of agent main');
    expect((await fragment("/cron/nobody/x")).status).toBe(404);
    const shell = await call("GET", "/console/cron");
    expect(shell.text).toContain('data-fragment="/console/fragments/cron"');
    expect(shell.text).toContain('<a href="/console/cron" data-operator');
  });
});
