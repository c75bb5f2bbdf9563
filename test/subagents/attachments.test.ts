import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  call,
  driveUntil,
  modelRequests,
  nth,
  sendMessage,
  sessionPath,
  tool,
  transcript,
  uid,
  webhookPosts,
} from "../support";
import {
  type Block,
  blocksOf,
  childKeyOf,
  completionsAfter,
  firstBlockText,
  indexedChildren,
  requester,
  settleAll,
  sha256Hex,
  spawn,
  spawnOk,
} from "../support/subagents";

const encoder = new TextEncoder();
const REDACTED = "[attachment content redacted]";

/** `GET /v1/sessions/{key}/attachments/{name}` with a token: status and body bytes. */
async function fetchAttachment(key: string, name: string, token: string) {
  const response = await call("GET", sessionPath(key, `/attachments/${encodeURIComponent(name)}`), { token });
  return { status: response.status, text: response.text, json: response.json };
}

describe("sessions_spawn attachments", () => {
  it("answers with a receipt whose sha256 match the bytes, and stores the files with the child", async () => {
    const r = await requester("spawner", "att-receipt");
    const notes = "hello, sub-agent";
    const binary = new Uint8Array([0, 1, 2, 250, 255]);
    const base64 = btoa(String.fromCharCode(...binary));
    const result = await spawn(r, {
      task: "read the attachments",
      agentId: "hook-sync-rec",
      attachments: [
        { name: "notes.txt", content: notes, mimeType: "text/plain" },
        { name: "blob.bin", content: base64, encoding: "base64" },
      ],
    });
    const child: string = result.childSessionKey;
    expect(child).toMatch(childKeyOf("hook-sync-rec"));
    const childUuid = child.split(":").at(-1);
    const notesBytes = encoder.encode(notes);
    expect(result.attachments).toEqual({
      count: 2,
      totalBytes: notesBytes.byteLength + binary.byteLength,
      files: [
        { name: "notes.txt", bytes: notesBytes.byteLength, sha256: await sha256Hex(notesBytes) },
        { name: "blob.bin", bytes: 5, sha256: await sha256Hex(binary) },
      ],
      relDir: `attachments/${childUuid}`,
    });
    // A known vector, so the helper itself is checked: SHA-256("abc").
    expect(await sha256Hex(encoder.encode("abc"))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );

    // The webhook agent is handed references (no contents) and its run token.
    await settleAll([child, r]);
    const post = nth(await webhookPosts("hook-sync-rec", child), 0);
    const path = (name: string) => `/v1/sessions/${encodeURIComponent(child)}/attachments/${name}`;
    expect(post.attachments).toEqual([
      { name: "blob.bin", size: 5, sha256: await sha256Hex(binary), path: path("blob.bin") },
      {
        name: "notes.txt",
        mimeType: "text/plain",
        size: notesBytes.byteLength,
        sha256: await sha256Hex(notesBytes),
        path: path("notes.txt"),
      },
    ]);

    // The child's own run token reads its files; so does the operator.
    const runToken: string = post.runToken;
    const withToken = await fetchAttachment(child, "notes.txt", runToken);
    expect(withToken).toMatchObject({ status: 200, text: notes });
    for (const token of [runToken, ADMIN]) {
      const response = await exports.default.fetch(`http://switchboard.test${path("blob.bin")}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(binary);
      expect(response.headers.get("Content-Type")).toBe("application/octet-stream");
    }
    expect((await fetchAttachment(child, "missing.txt", ADMIN)).status).toBe(404);

    // Another session's run token cannot read them.
    const other = await spawnOk(r, { task: "another", agentId: "hook-sync-rec" });
    await settleAll([other.child, r]);
    const otherPost = nth(await webhookPosts("hook-sync-rec", other.child), 0);
    expect((await fetchAttachment(child, "notes.txt", otherPost.runToken)).status).toBe(403);
  });

  it("relDir follows attachAs.mountPath", async () => {
    const r = await requester("main", "att-mount");
    const result = await spawn(r, {
      task: "t",
      attachments: [{ name: "a.txt", content: "x" }],
      attachAs: { mountPath: "/mnt/inputs" },
    });
    expect(result.attachments).toEqual({
      count: 1,
      totalBytes: 1,
      files: [{ name: "a.txt", bytes: 1, sha256: await sha256Hex(encoder.encode("x")) }],
      relDir: "/mnt/inputs",
    });
    await settleAll([r, result.childSessionKey]);
  });

  it("gives an openai child its small UTF-8 files inline", async () => {
    const r = await requester("spawner", "att-inline");
    const marker = `inline-${uid()}`;
    const { child } = await spawnOk(r, {
      task: marker,
      agentId: "model-tools-rec",
      attachments: [{ name: "facts.md", content: "the sky is green" }],
    });
    await settleAll([child, r]);
    const first = nth(await modelRequests("model-tools-rec", marker), 0);
    expect(first.messages).toContainEqual({
      role: "system",
      content: "Attached file facts.md:\nthe sky is green",
    });
  });

  it("replaces the contents in every stored copy of a run's sessions_spawn call", async () => {
    // The spawner's rule for "attach files" calls sessions_spawn with two files (test/support/test-config.ts).
    const r = await requester("spawner", "att-redact");
    await sendMessage(r, "attach files please");
    const [row] = await driveChildren(r);
    const child = String(row?.session_key);
    expect(child).toMatch(childKeyOf("worker"));
    await completionsAfter(r, [r, child]);

    const exported = await transcript(r);
    const everything = JSON.stringify(exported);
    expect(everything).not.toContain("TOP-SECRET-NOTES");
    expect(everything).not.toContain("AAECAw==");
    const call = exported.find(
      (message) => Array.isArray(message.content) && (message.content as Block[])[0]?.type === "toolCall",
    );
    expect(blocksOf(call)[0]).toMatchObject({
      type: "toolCall",
      name: "sessions_spawn",
      arguments: {
        task: "summarize the files",
        agentId: "worker",
        attachments: [
          { name: "notes.txt", content: REDACTED },
          { name: "data.bin", content: REDACTED, encoding: "base64" },
        ],
      },
    });
    // The tool result kept is the receipt: names, sizes and hashes only.
    const resultMessage = exported.find((message) => message.role === "toolResult");
    const receipt = JSON.parse(firstBlockText(resultMessage));
    expect(receipt).toMatchObject({
      status: "accepted",
      childSessionKey: child,
      attachments: {
        count: 2,
        totalBytes: 20,
        files: [
          { name: "notes.txt", bytes: 16, sha256: await sha256Hex(encoder.encode("TOP-SECRET-NOTES")) },
          { name: "data.bin", bytes: 4, sha256: await sha256Hex(new Uint8Array([0, 1, 2, 3])) },
        ],
      },
    });
    // The history tool (with tool messages) shows the same redacted call.
    const history = await tool("sessions_history", r, { sessionKey: r, includeTools: true });
    expect(JSON.stringify(history)).not.toContain("TOP-SECRET-NOTES");
    expect(JSON.stringify(history)).toContain(REDACTED);
    // The child has the real files.
    expect((await fetchAttachment(child, "notes.txt", ADMIN)).text).toBe("TOP-SECRET-NOTES");
    expect(JSON.stringify(await transcript(child))).not.toContain("TOP-SECRET-NOTES");
  });
});

/** Waits for the requester's first child to appear in the index, driving the requester's run. */
function driveChildren(key: string) {
  return driveUntil(
    [key],
    async () => {
      const rows = await indexedChildren(key);
      return rows.length > 0 ? rows : undefined;
    },
    `a child of ${key}`,
  );
}
