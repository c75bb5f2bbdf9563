import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./app-env";
import { favicon } from "./console/favicon";
import { consoleRoutes } from "./console/routes";
import { AppError, invokeErrorType } from "./errors";
import { docsRoutes } from "./routes/docs";
import { confineGrants } from "./routes/grant-routes";
import { healthRoutes } from "./routes/health";
import { mcpRoutes } from "./routes/mcp";
import { requireConfig, requireIdentity } from "./routes/middleware";
import { openApiRoutes } from "./routes/openapi";
import { replicaSessions } from "./routes/replicas";
import { invokeMethodNotAllowed, toolsInvokeRoutes } from "./routes/tools-invoke";
import { channelSetupRoutes } from "./routes/v1/channel-setup";
import { channelRoutes } from "./routes/v1/channels";
import { cronRoutes } from "./routes/v1/cron";
import { deliveryRoutes } from "./routes/v1/deliveries";
import { erasureRoutes } from "./routes/v1/erasure";
import { grantRoutes } from "./routes/v1/grants";
import { hookRoutes } from "./routes/v1/hooks";
import { maintenanceRoutes } from "./routes/v1/maintenance";
import { runRoutes } from "./routes/v1/runs";
import { sessionHistoryRoutes } from "./routes/v1/session-history";
import { sessionRoutes } from "./routes/v1/sessions";
import { toolRoutes } from "./routes/v1/tools";

const MAX_BODY_BYTES = 2 * 1024 * 1024;

export const app = new Hono<AppEnv>();

app.route("/healthz", healthRoutes);
// Browsers ask every origin for its icon: the console's, whatever the configuration.
app.get("/favicon.ico", favicon);
// Every other request, unknown routes included, fails while the configuration is invalid (SPEC §2).
app.use("*", requireConfig);
// Every D1 query of a request goes through its D1 sessions, served by the nearest replica, from the
// caller's bookmarks (README "Read replicas"); a malformed Switchboard-Bookmark is a 400.
app.use("*", replicaSessions);

// The API reference needs no token; like every other route it answers config_invalid while the
// configuration is invalid (SPEC §2), although the document itself does not depend on it.
app.route("/openapi.json", openApiRoutes);
app.route("/docs", docsRoutes);
// The operator console: its pages are data-free shells; its fragments check the bearer token themselves.
app.route("/console", consoleRoutes);

const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new AppError("payload_too_large", `request body over ${MAX_BODY_BYTES} bytes`);
  },
});

// Channel webhooks prove themselves with an HMAC signature over the body, not a bearer token
// (SPEC §8), so their routes come before the bearer check below.
app.use("/v1/channels/*", limitBody);
app.route("/v1/channels", channelRoutes);
// A hook proves its own secret (a signature or a bearer token that is the hook's, SPEC §22), not a
// Switchboard token; its route limits the body to 256 KiB itself.
app.route("/v1/hooks", hookRoutes);

// Any other method on /tools/invoke is 405, before the token is checked, as OpenClaw's gateway answers.
app.on(["GET", "PUT", "PATCH", "DELETE"], "/tools/invoke", invokeMethodNotAllowed);

// A grant token reaches only its session's allowed routes; confineGrants refuses it everywhere else.
for (const path of ["/tools/*", "/v1/*", "/mcp"]) app.use(path, limitBody, requireIdentity, confineGrants);

app.route("/tools/invoke", toolsInvokeRoutes);
app.route("/v1/tools", toolRoutes);
app.route("/v1/sessions", sessionRoutes);
app.route("/v1/erase", erasureRoutes);
app.route("/v1/sessions", sessionHistoryRoutes);
app.route("/v1/runs", runRoutes);
app.route("/v1/grants", grantRoutes);
app.route("/v1/deliveries", deliveryRoutes);
app.route("/v1/cron", cronRoutes);
app.route("/v1/maintenance", maintenanceRoutes);
// A channel's setup (SPEC §21): the operator's, behind the bearer check its `…/messages` comes before.
app.route("/v1/channels", channelSetupRoutes);
app.route("/mcp", mcpRoutes);

app.notFound((c) =>
  c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404),
);

// The one error handler: domain errors keep their code and message; anything else is logged and
// answered with a sanitized 500. `/tools/invoke` speaks OpenClaw's `{ ok: false, error: { type } }`.
app.onError((error, c) => {
  const known = error instanceof AppError ? error : undefined;
  if (!known || known.status >= 500)
    console.error(`${c.req.method} ${c.req.path} failed:`, known?.code ?? error);
  const code = known?.code ?? "internal";
  const message = known?.message ?? "internal error";
  const status = known?.status ?? 500;
  // A 401 names the scheme it wants (RFC 9110 §11.6.1, RFC 6750 §3), so a client knows to send a bearer
  // token. Not on a channel webhook: its credential is the body's signature, never a token.
  if (status === 401 && !/^\/v1\/channels\/[^/]+\/messages$/.test(c.req.path))
    c.header("WWW-Authenticate", "Bearer");
  if (c.req.path === "/tools/invoke") {
    const type = known ? invokeErrorType(known) : "internal";
    return c.json({ ok: false, error: { type, message } }, status);
  }
  return c.json({ error: { code, message } }, status);
});
