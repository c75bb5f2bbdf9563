import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EVENTS_SHOWN } from "../../../src/console/pages/session-activity";
import { RUNS_SHOWN } from "../../../src/console/pages/session-runs";
import { appendEvent, systemEvent } from "../../../src/session/store/event-log";
import {
  ADMIN,
  AGENT_TOKENS,
  call,
  callTool,
  createSession,
  createSpawned,
  driveUntil,
  sendMessage,
  session,
  stub,
  uid,
  waitRun,
} from "../../support";
import { ESCAPED, SCRIPT } from "../../support/console";
import { shardOf } from "../../support/shards";
import { completionsAfter, requester, runningChild, spawnOk } from "../../support/subagents";

const REGIONS = ["runs", "tree", "activity", "deliveries"] as const;

/** A region fragment of a session page, as the console's client fetches it. */
function region(key: string, part: (typeof REGIONS)[number], token: string = ADMIN) {
  return call<{ error: { code: string; message: string } }>(
    "GET",
    `/console/fragments/sessions/${encodeURIComponent(key)}/${part}`,
    { token },
  );
}

/** A region's HTML, expected to render (200, text/html) with no markup from the data in it. */
async function html(key: string, part: (typeof REGIONS)[number]): Promise<string> {
  const response = await region(key, part);
  expect(response.status, response.text).toBe(200);
  expect(response.text).not.toContain("<script");
  return response.text;
}

interface Found {
  attrs: Record<string, string>;
  text: string;
}

// Elements with no end tag (so nothing inside them).
const VOID = new Set(["input", "br", "hr", "img", "meta", "link", "wbr"]);

const ENTITIES: Record<string, string> = {
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&amp;": "&",
};

/** Text as a reader sees it: HTMLRewriter hands over the source, entities and all. */
const decodeEntities = (text: string) =>
  text.replace(/&(lt|gt|quot|#39|amp);/g, (entity) => ENTITIES[entity] ?? entity);

/** The elements matching `selector`, each with its attributes and its text (descendants' included). */
async function select(source: string, selector: string): Promise<Found[]> {
  const found: Found[] = [];
  const open: Found[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(element) {
        const entry = { attrs: Object.fromEntries(element.attributes), text: "" };
        found.push(entry);
        if (VOID.has(element.tagName)) return;
        open.push(entry);
        element.onEndTag(() => {
          open.splice(open.indexOf(entry), 1);
        });
      },
      text(chunk) {
        for (const entry of open) entry.text += chunk.text;
      },
    })
    // Elements apart read apart (table cells, spans), as a browser lays them out; a line-break
    // opportunity (<wbr>) adds nothing.
    .on("*", {
      element(element) {
        if (element.tagName === "wbr") return;
        for (const entry of open) entry.text += " ";
      },
    })
    .transform(new Response(source))
    .text();
  return found.map((entry) => ({ ...entry, text: decodeEntities(entry.text).replace(/\s+/g, " ").trim() }));
}

const attrsOf = async (source: string, selector: string) =>
  (await select(source, selector)).map((entry) => entry.attrs);
const textsOf = async (source: string, selector: string) =>
  (await select(source, selector)).map((entry) => entry.text);

describe("console session regions (operator)", () => {
  it("runs and activity: a failed run with its error and usage, the watchers and the event log, escaped", async () => {
    const key = `agent:model-500:console-${uid()}`;
    await createSession({ agentId: "model-500", key });
    const failed = await sendMessage(key, "will fail");
    expect(await waitRun(failed)).toMatchObject({ status: "error" });
    const watcher = `agent:main:console-watcher-${uid()}`;
    expect(await session(key).watch(watcher)).toEqual({ ok: true, value: { watched: true } });
    // A runtime's error and an event's text are whatever they are: here, markup.
    const hostile = crypto.randomUUID();
    await runInDurableObject(stub(key), (_instance, state) => {
      const now = Date.now();
      state.storage.sql.exec(
        `INSERT INTO run (run_id, status, timeout_ms, created_at, started_at, ended_at, attempts, error,
           input_tokens, output_tokens, total_tokens, model, provider, estimated_cost_usd)
           VALUES (?, 'error', 60000, ?, ?, ?, 1, ?, 1200, 34, 1234, 'fallback-model', 'openai', 0.0032)`,
        hostile,
        now,
        now,
        now + 2000,
        SCRIPT,
      );
      appendEvent(state.storage.sql, systemEvent("patched", `patched ${SCRIPT}`, { data: { note: SCRIPT } }));
    });

    const runs = await html(key, "runs");
    expect(await attrsOf(runs, "tr[data-run]")).toEqual([{ "data-run": hostile }, { "data-run": failed }]);
    expect(await textsOf(runs, "tr[data-run] .status")).toEqual(["error", "error"]);
    const [hostileRow, failedRow] = await textsOf(runs, "tr[data-run]");
    expect(hostileRow).toContain(SCRIPT);
    expect(hostileRow).toContain("1.2k");
    // The model that answered, and the estimated cost; a run without them shows dashes, never $0.
    expect(hostileRow).toContain("fallback-model");
    expect(hostileRow).toContain("$0.0032");
    expect(failedRow).not.toContain("$");
    expect(hostileRow).toContain("2s");
    expect(failedRow).toContain("HTTP 500");
    expect(failedRow).toContain("(2 retries)");
    expect(runs).toContain(ESCAPED);
    expect(await attrsOf(runs, "time")).toHaveLength(2);

    const activity = await html(key, "activity");
    expect(await attrsOf(activity, "#watchers li[data-watcher] a")).toEqual([
      { href: `/console/sessions/${encodeURIComponent(watcher)}` },
    ]);
    const [watching] = await textsOf(activity, "#watchers li");
    expect(watching).toMatch(
      /^agent:main:console-watcher-\w+ read up to #\d+ of #\d+, watching since just now$/,
    );
    const events = await attrsOf(activity, "#events ol.events > li");
    const seqs = events.map((event) => Number(event["data-seq"]));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(events.map((event) => event["data-kind"])).toEqual(
      expect.arrayContaining(["patched", "run_failed", "run_started", "run_queued", "message", "created"]),
    );
    const [newest] = await textsOf(activity, "#events li");
    expect(newest).toBe(`#${seqs[0]} patched just now patched ${SCRIPT} · note=${SCRIPT}`);
    expect(activity).toContain(ESCAPED);
  });

  it("a busy session: the newest runs and events in sight, the older ones folded, every cell labelled", async () => {
    const key = `agent:main:console-busy-${uid()}`;
    await createSession({ agentId: "main", key });
    const runIds = Array.from({ length: RUNS_SHOWN + 3 }, () => crypto.randomUUID());
    await runInDurableObject(stub(key), (_instance, state) => {
      const now = Date.now();
      runIds.forEach((runId, index) => {
        state.storage.sql.exec(
          `INSERT INTO run (run_id, status, timeout_ms, created_at, started_at, ended_at, attempts)
           VALUES (?, 'ok', 60000, ?, ?, ?, 1)`,
          runId,
          now + index,
          now + index,
          now + index + 1000,
        );
      });
      for (let index = 0; index < EVENTS_SHOWN + 4; index++)
        appendEvent(state.storage.sql, systemEvent("patched", `patch ${index}`));
    });

    const runs = await html(key, "runs");
    const newestFirst = [...runIds].reverse();
    // In document order: the newest in the table at the top, then the older ones in the fold below.
    expect((await attrsOf(runs, "tr[data-run]")).map((row) => row["data-run"])).toEqual(newestFirst);
    expect(await attrsOf(runs, "details.older")).toEqual([{ class: "older", "data-key": "runs-older" }]);
    expect(await textsOf(runs, "details.older > summary")).toEqual(["3 older runs"]);
    expect((await attrsOf(runs, "details.older tr[data-run]")).map((row) => row["data-run"])).toEqual(
      newestFirst.slice(RUNS_SHOWN),
    );
    // A narrow table shows each row as a card: every cell names its column.
    const cells = await attrsOf(runs, "tr[data-run] > *");
    expect(cells.map((cell) => cell["data-label"])).toEqual(
      runIds.flatMap(() => ["Run", "Status", "Queued", "Took", "Model", "Tokens", "Cost", "Error"]),
    );

    const activity = await html(key, "activity");
    const shown = await attrsOf(activity, "#events > ol.events > li");
    expect(await attrsOf(activity, "#events ol.events")).toHaveLength(2);
    expect(shown).toHaveLength(EVENTS_SHOWN);
    const folded = await attrsOf(activity, "#events details.older[data-key=events-older] li");
    const seqs = [...shown, ...folded].map((event) => Number(event["data-seq"]));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(folded.length).toBeGreaterThanOrEqual(4);
  });

  it("tree: running sub-agents nested with steer and kill sent as their parent, an ended one without", async () => {
    const r = await requester("spawner", "console-tree");
    const done = await spawnOk(r, { task: "quick", agentId: "worker", label: "done" });
    await completionsAfter(r, [r, done.child]);
    const running = await runningChild(r, SCRIPT);
    const grandchild = `agent:worker:subagent:${crypto.randomUUID()}`;
    await createSpawned({
      sessionKey: grandchild,
      agentId: "worker",
      label: "grandchild",
      spawnedBy: running.child,
      parentSessionKey: running.child,
      spawnDepth: 2,
    });

    const tree = await html(r, "tree");
    expect(tree).toContain(ESCAPED);
    const top = `details[data-key="${running.child}"]`;
    expect(await attrsOf(tree, top)).toEqual([{ "data-key": running.child, open: "" }]);
    expect(await attrsOf(tree, `${top} > summary a`)).toEqual([
      { href: `/console/sessions/${encodeURIComponent(running.child)}` },
    ]);
    expect(await textsOf(tree, `${top} > summary .label`)).toEqual([SCRIPT]);
    expect(await textsOf(tree, `${top} > summary .status`)).toEqual(["running"]);
    for (const [parent, child] of [
      [r, running.child],
      [running.child, grandchild],
    ] as const) {
      const node = `details[data-key="${child}"]`;
      const kill = await attrsOf(tree, `${node} > .controls form.kill`);
      expect(kill).toEqual([
        expect.objectContaining({ "data-api": "/v1/tools/subagents", "data-session": parent }),
      ]);
      expect(kill[0]?.["data-confirm"]).toMatch(/^Kill .+ and every sub-agent it spawned\?$/);
      expect(await attrsOf(tree, `${node} > .controls form.kill input`)).toEqual([
        { type: "hidden", name: "action", value: "kill" },
        { type: "hidden", name: "target", value: child },
      ]);
      expect(await attrsOf(tree, `${node} > .controls form.steer`)).toEqual([
        expect.objectContaining({ "data-api": "/v1/tools/subagents", "data-session": parent }),
      ]);
      expect(await attrsOf(tree, `${node} > .controls form.steer input`)).toEqual([
        { type: "hidden", name: "action", value: "steer" },
        { type: "hidden", name: "target", value: child },
      ]);
      expect(await attrsOf(tree, `${node} > .controls form.steer textarea`)).toEqual([
        expect.objectContaining({ name: "message" }),
      ]);
    }
    // The grandchild is nested inside its parent's node.
    expect(await attrsOf(tree, `${top} details[data-key="${grandchild}"]`)).toHaveLength(1);
    const ended = `details[data-key="${done.child}"]`;
    expect(await attrsOf(tree, ended)).toEqual([{ "data-key": done.child }]);
    expect(await textsOf(tree, `${ended} > summary .status`)).toEqual(["done"]);
    expect(await attrsOf(tree, `${ended} form`)).toEqual([]);

    // What the kill form sends: the tool takes the child's key as its target.
    const killed = await callTool("subagents", r, { action: "kill", target: running.child });
    expect(killed.json).toMatchObject({ status: "ok", action: "kill", killed: 1 });

    // The ended child's completion is a delivery record of the child's own, shown in its region.
    const childDeliveries = await driveUntil(
      [done.child],
      async () => {
        const text = await html(done.child, "deliveries");
        return text.includes("data-delivery") ? text : undefined;
      },
      "the completion's delivery record in the index",
    );
    expect(await textsOf(childDeliveries, "tr[data-delivery] .status")).toEqual(["delivered"]);
    expect(await attrsOf(childDeliveries, "form")).toEqual([]);
  });

  it("deliveries: newest first, a suspended one with retry and dismiss, its error escaped", async () => {
    const key = `agent:main:console-deliveries-${uid()}`;
    await createSession({ agentId: "main", key });
    const now = Date.now();
    const row = (id: string, status: string, createdAt: number, lastError: string | null) =>
      shardOf(key)
        .prepare(
          `INSERT INTO delivery_index (delivery_id, session_key, agent_id, kind, target, status, attempts,
           next_attempt_at, last_error, created_at, updated_at) VALUES (?, ?, 'main', 'reply', 'slack:C1', ?, 3, ?, ?, ?, ?)`,
        )
        .bind(id, key, status, status === "pending" ? now + 60_000 : null, lastError, createdAt, createdAt);
    const suspended = crypto.randomUUID();
    const delivered = crypto.randomUUID();
    const pending = crypto.randomUUID();
    await shardOf(key).batch([
      row(delivered, "delivered", now - 3000, null),
      row(suspended, "suspended", now - 2000, SCRIPT),
      row(pending, "pending", now - 1000, "channel webhook answered HTTP 500"),
    ]);

    const deliveries = await html(key, "deliveries");
    expect((await attrsOf(deliveries, "tr[data-delivery]")).map((attrs) => attrs["data-delivery"])).toEqual([
      pending,
      suspended,
      delivered,
    ]);
    expect(await textsOf(deliveries, "tr[data-delivery] .status")).toEqual([
      "pending",
      "suspended",
      "delivered",
    ]);
    const [pendingRow, suspendedRow] = await textsOf(deliveries, "tr[data-delivery]");
    expect(pendingRow).toMatch(
      /^reply slack:C1 pending 3 in (under a minute|\d+ min) channel webhook answered HTTP 500 just now Dismiss$/,
    );
    expect(suspendedRow).toContain(SCRIPT);
    expect(deliveries).toContain(ESCAPED);
    const actions = `tr[data-delivery="${suspended}"] form`;
    expect(await attrsOf(deliveries, actions)).toEqual([
      expect.objectContaining({ class: "retry", "data-api": `/v1/deliveries/${suspended}/retry` }),
      expect.objectContaining({ class: "dismiss", "data-api": `/v1/deliveries/${suspended}/dismiss` }),
    ]);
    expect(await textsOf(deliveries, `${actions} button`)).toEqual(["Retry", "Dismiss"]);
    // The pending one may be dismissed too (as the ledger allows); the delivered one offers nothing.
    expect(await attrsOf(deliveries, `tr[data-delivery="${pending}"] form`)).toEqual([
      expect.objectContaining({ class: "dismiss" }),
    ]);
    expect(await attrsOf(deliveries, `tr[data-delivery="${delivered}"] form`)).toEqual([]);
  });
});

describe("console session regions (access and input)", () => {
  it("a grant or agent token gets 403 JSON, a bad key 400 naming it, a missing session 404", async () => {
    const key = `agent:main:console-access-${uid()}`;
    await createSession({ agentId: "main", key });
    const granted = await call<{ token: string }>("POST", "/v1/grants", {
      token: ADMIN,
      body: { sessionKey: key, scopes: ["read", "send", "events"], ttlSeconds: 600 },
    });
    expect(granted.status, granted.text).toBe(201);
    for (const part of REGIONS) {
      for (const token of [granted.json.token, AGENT_TOKENS.main]) {
        const refused = await region(key, part, token);
        expect(refused.status, `${part}: ${refused.text}`).toBe(403);
        expect(refused.json.error.code).toBe("forbidden");
      }
      const bad = await region("no such key", part);
      expect(bad.status, bad.text).toBe(400);
      expect(bad.json.error).toEqual({ code: "bad_request", message: expect.stringMatching(/^key: /) });
    }
    const missing = `agent:main:console-missing-${uid()}`;
    for (const part of ["runs", "activity"] as const) {
      const absent = await region(missing, part);
      expect(absent.status, absent.text).toBe(404);
      expect(absent.json).toEqual({ error: { code: "not_found", message: "session not found" } });
    }
  });
});
