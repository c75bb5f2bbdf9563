import { MAX_LABEL_CHARS } from "../../limits";
import type { SessionRow } from "../../session/api";

const v1Session = (sessionKey: string) => `/v1/sessions/${encodeURIComponent(sessionKey)}`;

/**
 * The operator's actions on a session: send as another session, patch, compact, archive or restore,
 * export. Each form is sent by the client to the REST route it names, with the signed-in token.
 */
export function SessionActions(props: { sessionKey: string; row: SessionRow; models: string[] }) {
  const { sessionKey, row, models } = props;
  const fileName = `${sessionKey.replace(/[^a-z0-9._-]+/gi, "_")}.jsonl`;
  return (
    <section class="region actions" id="act" aria-labelledby="act-title">
      <h2 id="act-title">Act on this session</h2>
      <form id="send-as" data-api="/v1/tools/sessions_send" data-session-field="from" data-reset>
        <h3>Send as another session</h3>
        <p class="muted">
          <code>sessions_send</code> evaluated exactly as the session you name: its visibility and send policy
          apply.
        </p>
        <input type="hidden" name="sessionKey" value={sessionKey} />
        <label for="send-as-from">From session</label>
        <input id="send-as-from" name="from" required placeholder="agent:main:main" autocomplete="off" />
        <label for="send-as-message">Message</label>
        <textarea id="send-as-message" name="message" required rows={2} />
        <label for="send-as-timeout">Wait for the reply (seconds, 0 = do not wait)</label>
        <input id="send-as-timeout" name="timeoutSeconds" type="number" min={0} max={300} value="30" />
        <button type="submit">Send as that session</button>
        <output class="result" />
      </form>
      <form
        id="patch"
        data-api={v1Session(sessionKey)}
        data-method="PATCH"
        data-success="Saved."
        data-after="reload"
      >
        <h3>Settings</h3>
        <label for="patch-label">Label</label>
        <input
          id="patch-label"
          name="label"
          value={row.label ?? ""}
          data-empty="null"
          maxlength={MAX_LABEL_CHARS}
        />
        <label for="patch-model">Model</label>
        {/* Values are JSON: blank keeps the model, null clears an override (the row shows only the effective one). */}
        <select id="patch-model" name="model" data-json>
          <option value="">keep {row.model ?? "the agent's model"}</option>
          <option value="null">the agent's default</option>
          {models.map((model) => (
            <option value={JSON.stringify(model)}>{model}</option>
          ))}
        </select>
        <label for="patch-policy">Send policy</label>
        <select id="patch-policy" name="sendPolicy" data-empty="null">
          <option value="">inherit (configuration)</option>
          <option value="allow" selected={row.sendPolicy === "allow"}>
            allow
          </option>
          <option value="deny" selected={row.sendPolicy === "deny"}>
            deny
          </option>
        </select>
        <button type="submit">Save settings</button>
      </form>
      {/* No data-success: the flash says what the answer says (compacted how much, or why not). */}
      <form id="compact" data-api={`${v1Session(sessionKey)}/compact`} data-after="reload">
        <h3>Compact</h3>
        <p class="muted">Summarize older turns now; the transcript keeps them.</p>
        <button type="submit">Compact now</button>
      </form>
      <form
        id="archive"
        data-api={v1Session(sessionKey)}
        data-method="PATCH"
        data-after="reload"
        data-success={row.archived ? "Restored." : "Archived."}
      >
        <h3>{row.archived ? "Archived" : "Archive"}</h3>
        <input type="hidden" name="archived" value={row.archived ? "false" : "true"} data-json />
        <input type="hidden" name="expectedSessionId" value={row.sessionId} />
        <button type="submit">{row.archived ? "Restore" : "Archive"}</button>
      </form>
      <p>
        <a
          href={`${v1Session(sessionKey)}/transcript.jsonl`}
          data-download={`${v1Session(sessionKey)}/transcript.jsonl`}
          data-filename={fileName}
        >
          Export the transcript (JSONL, exact)
        </a>
      </p>
    </section>
  );
}
