import { ADMIN } from "./auth";
import { call } from "./http";
import { uid } from "./ids";
import { createSession, importMessages, msg } from "./sessions";
import type { ApiError } from "./wire";

/** Markup an attacker would write into a label or a message. */
export const SCRIPT = "<script>alert(1)</script>";
/** `SCRIPT` as the console must show it: escaped. */
export const ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;";

/** A console fragment as the client fetches it: its status and HTML (`json` for a refusal). */
export async function fragment(path: string, token = ADMIN) {
  const answer = await call<ApiError>("GET", `/console/fragments${path}`, { token });
  return { ...answer, html: answer.text };
}

/** The path of a session page's fragment (or of one of its parts, `query` starting with `/` or `?`). */
export const sessionFragment = (key: string, query = "") =>
  `/console/fragments/sessions/${encodeURIComponent(key)}${query}`;

/** HTML text with the entities the console writes decoded. */
export const decodeEntities = (text: string) =>
  text
    .replaceAll("&quot;", '"')
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");

/** A session whose label and transcript carry markup, as an attacker would write them. */
export async function hostileSession(): Promise<string> {
  const key = `agent:main:console-${uid()}`;
  await createSession({ key, label: `label ${SCRIPT}` });
  await importMessages(key, [
    msg("m1", "user", `hello ${SCRIPT}`, 1_000, { provenance: { kind: "external_user" } }),
    msg("m2", "assistant", [{ type: "text", text: `answer ${SCRIPT}` }], 2_000),
    msg("m3", "user", "from another agent", 3_000, {
      provenance: { kind: "inter_session", sourceSessionKey: "agent:research:main" },
    }),
    msg("m4", "user", "the task", 4_000, { provenance: { kind: "subagent_task" } }),
  ]);
  return key;
}
