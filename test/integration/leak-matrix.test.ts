import { describe, expect, it } from "vitest";
import { signatureHeader } from "../../src/channels/signature";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  createSession,
  createSpawned,
  grantFor,
  type HttpResult,
  importMessages,
  msg,
  openStream,
  runToken,
  sendMessage,
  sessionPath,
  uid,
  waitRun,
} from "../support";
import { postDiscord, postSlack, postTelegram, slackEvent, tgUpdate } from "../support/platforms/inbound";
import { platformSecrets } from "./platform-leaks";

/**
 * The leak matrix (issue 28): every session carries a canary, every credential calls every surface for
 * every session, and an answer holding a canary of a session its caller may not see is a leak. A
 * surface added later (platform channels, cron jobs, hooks, maintenance reports) joins `surfaces`.
 * The platform channels' inbound route is here forged with the caller's token (it takes no bearer): 401,
 * and no answer of any surface holds a bot token or signing secret (platform-leaks.test.ts: the rest).
 */

interface Session {
  name: string;
  key: string;
  canary: string;
  /** The run that answered its canary message. */
  runId: string;
  /** Its agent, and a job of that agent named with its canary (SPEC §22). */
  agentId: string;
  jobId: string;
}

interface Credential {
  name: string;
  token: string;
  /** The sessions (by name) whose canary this credential may read. */
  sees: readonly string[];
}

/** One answer of a surface, as text (a stream's events read to their end, or its refusal). */
type Surface = (
  token: string,
  session: Session,
) => Promise<HttpResult<unknown> | { status: number; text: string }>;

const canaryOf = (name: string) => `CANARY${name.toUpperCase()}${uid().replace(/-/g, "")}`;

/** A session with its canary in its label, its first message and its reply. */
async function canarySession(
  name: string,
  key: string,
  agentId: string,
  spawnedBy?: string,
  withJob = true,
): Promise<Session> {
  const canary = canaryOf(name);
  if (spawnedBy)
    await createSpawned({ sessionKey: key, agentId, spawnedBy, parentSessionKey: spawnedBy, label: canary });
  else await createSession({ key, label: canary });
  await importMessages(key, [msg(`m-${name}`, "user", `note ${canary}`, Date.now())]);
  const runId = await sendMessage(key, `reply about ${canary}`);
  await waitRun(runId);
  const jobId = `leak-${name}-${uid()}`;
  // A job outlives a session: the deleted generation's canary is in none (nobody may see it).
  if (!withJob) return { name, key, canary, runId, agentId, jobId };
  const job = await call("POST", "/v1/cron/jobs", {
    token: ADMIN,
    body: {
      agentId,
      jobId,
      name: `job ${canary}`,
      enabled: false,
      schedule: { kind: "every", everyMs: 3_600_000 },
      payload: { kind: "agentTurn", message: `about ${canary}` },
    },
  });
  expect(job.status, job.text).toBe(201);
  return { name, key, canary, runId, agentId, jobId };
}

/** Reads a session's stream from its start up to the operator's stateVersion (or its refusal). */
async function streamText(token: string, session: Session, tree: boolean) {
  const described = await call<{ stateVersion?: number }>("GET", sessionPath(session.key), { token: ADMIN });
  const head = described.json.stateVersion ?? 0;
  const stream = await openStream(sessionPath(session.key, `/events?after=0${tree ? "&tree=1" : ""}`), {
    token,
  });
  if (stream.status !== 200) return { status: stream.status, text: JSON.stringify(stream.error) };
  const events = await stream.until(
    (event) =>
      event.event === "close" ||
      (!tree && Number(event.id) >= head) ||
      (tree && event.event === "run_completed"),
    5000,
  );
  await stream.close();
  return { status: 200, text: JSON.stringify(events) };
}

const tool =
  (name: string, args: (session: Session) => Record<string, unknown>): Surface =>
  (token, session) =>
    call("POST", `/v1/tools/${name}`, {
      token,
      body: args(session),
      headers: { "X-Switchboard-Session": "current" },
    });

const surfaces: Record<string, Surface> = {
  "GET session": (token, s) => call("GET", sessionPath(s.key), { token }),
  "GET history": (token, s) => call("GET", sessionPath(s.key, "/history"), { token }),
  "GET transcript.jsonl": (token, s) => call("GET", sessionPath(s.key, "/transcript.jsonl"), { token }),
  "GET events": (token, s) => streamText(token, s, false),
  "GET events tree": (token, s) => streamText(token, s, true),
  "GET deliveries": (token) => call("GET", "/v1/deliveries", { token }),
  "GET run": (token, s) => call("GET", `/v1/runs/${s.runId}`, { token }),
  "GET run events": (token, s) => call("GET", `/v1/runs/${s.runId}/events?after=0`, { token }),
  "GET cron jobs": (token, s) => call("GET", `/v1/cron/jobs?agentId=${s.agentId}`, { token }),
  "GET cron job": (token, s) => call("GET", `/v1/cron/jobs/${s.jobId}?agentId=${s.agentId}`, { token }),
  "GET cron runs": (token, s) => call("GET", `/v1/cron/jobs/${s.jobId}/runs?agentId=${s.agentId}`, { token }),
  "PATCH cron job": (token, s) =>
    call("PATCH", `/v1/cron/jobs/${s.jobId}?agentId=${s.agentId}`, { token, body: { enabled: false } }),
  "GET grants": (token) => call("GET", "/v1/grants", { token }),
  "POST maintenance dry-run": (token) =>
    call("POST", "/v1/maintenance", { token, body: { mode: "dry-run" } }),
  sessions_list: tool("sessions_list", () => ({ limit: 200 })),
  sessions_search: tool("sessions_search", (s) => ({ query: s.canary })),
  sessions_history: tool("sessions_history", (s) => ({ sessionKey: s.key })),
  session_status: tool("session_status", (s) => ({ sessionKey: s.key })),
  "console session": (token, s) =>
    call("GET", `/console/fragments/sessions/${encodeURIComponent(s.key)}`, { token }),
  "console transcript": (token, s) =>
    call("GET", `/console/fragments/sessions/${encodeURIComponent(s.key)}/transcript`, { token }),
  "console runs": (token, s) =>
    call("GET", `/console/fragments/sessions/${encodeURIComponent(s.key)}/runs`, { token }),
  "POST telegram channel, forged": (token) => postTelegram("tg-bot", tgUpdate({}), { secret: token }),
  "POST slack channel, forged": (token) =>
    postSlack("slack-bot", slackEvent({ channel_type: "im", channel: "D0LEAK" }), { secret: token }),
  "POST discord channel, forged": (token) =>
    postDiscord("discord-bot", { id: "1", type: 2, token, data: { name: "ask" } }, { tamper: true }),
  // A hook takes its own secret only (SPEC §22): no Switchboard token calls it, whatever the body names.
  "POST hook with the caller's bearer, forged": (token, s) =>
    call("POST", "/v1/hooks/quiet", { token, body: { sessionKey: s.key, agentId: "main", text: s.canary } }),
  "POST hook signed with the caller's token, forged": async (token, s) => {
    const body = JSON.stringify({ sessionKey: s.key });
    return call("POST", "/v1/hooks/build", {
      body,
      headers: {
        "Content-Type": "application/json",
        "X-Switchboard-Signature": await signatureHeader(token, body),
      },
    });
  },
};

/** The surfaces a caller's bearer token cannot open: each answers 401 to every credential. */
const refused = (surface: string) => surface.endsWith(", forged");

describe("the leak matrix: no answer carries a canary its caller may not see", () => {
  it("over every credential, surface and session", { timeout: 120_000 }, async () => {
    const tag = uid();
    const a = await canarySession("a", `agent:main:api:leak-a-${tag}`, "main");
    const b = await canarySession("b", `agent:research:api:leak-b-${tag}`, "research");
    const c = await canarySession("c", `agent:main:subagent:${crypto.randomUUID()}`, "main", a.key);
    // A deleted generation, then a new one under its key: the old one's canary is nobody's any more.
    const oldKey = `agent:main:api:leak-d-${tag}`;
    const old = await canarySession("dold", oldKey, "main", undefined, false);
    const oldGrant = (await grantFor(oldKey, ["read", "events"])).token;
    expect((await call("DELETE", sessionPath(oldKey), { token: ADMIN })).status).toBe(200);
    const d = await canarySession("d", oldKey, "main");
    const sessions = [a, b, c, d];

    const credentials: Credential[] = [
      { name: "operator", token: ADMIN, sees: ["a", "b", "c", "d"] },
      { name: "agent main", token: AGENT_TOKENS.main, sees: ["a", "c", "d"] },
      { name: "agent research", token: AGENT_TOKENS.research, sees: ["b"] },
      { name: "grant a read+events", token: (await grantFor(a.key, ["read", "events"])).token, sees: ["a"] },
      { name: "grant c read+events", token: (await grantFor(c.key, ["read", "events"])).token, sees: ["c"] },
      { name: "grant of the deleted generation", token: oldGrant, sees: [] },
      { name: "run token of a", token: await runToken({ sessionKey: a.key }), sees: ["a", "c"] },
      {
        name: "run token of b",
        token: await runToken({ sessionKey: b.key, agentId: "research" }),
        sees: ["b"],
      },
    ];

    // A grant's token is shown once, when it is made: no answer of any surface may carry one again.
    const grantTokens = credentials
      .filter((credential) => credential.name.startsWith("grant"))
      .map((c) => c.token);
    const secrets = [...(await platformSecrets()), ...grantTokens];
    const leaks: string[] = [];
    let answered = 0;
    for (const credential of credentials) {
      const hidden = [...sessions, old].filter((s) => !credential.sees.includes(s.name));
      for (const [surfaceName, surface] of Object.entries(surfaces)) {
        for (const session of sessions) {
          const answer = await surface(credential.token, session);
          expect(answer.status, `${credential.name} ${surfaceName} ${session.name}`).toBeLessThan(500);
          if (refused(surfaceName)) expect(answer.status, `${credential.name} ${surfaceName}`).toBe(401);
          if (answer.status < 300) answered++;
          for (const secret of secrets)
            if (answer.text.includes(secret))
              leaks.push(
                `${credential.name} · ${surfaceName} of ${session.name} shows a platform secret or grant token`,
              );
          for (const other of hidden)
            if (answer.text.includes(other.canary))
              leaks.push(
                `${credential.name} · ${surfaceName} of ${session.name} shows ${other.name}'s canary`,
              );
        }
      }
    }
    expect(leaks).toEqual([]);
    // The matrix is honest only if it read something: each credential that sees a session got answers.
    expect(answered).toBeGreaterThan(100);
  });
});
