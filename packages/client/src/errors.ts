/** What went wrong, as a discriminant: one per class below. */
export type SwitchboardErrorKind =
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "bad_request"
  | "conflict"
  | "payload_too_large"
  | "server"
  | "network"
  | "timeout"
  | "http";

interface ErrorInit {
  kind: SwitchboardErrorKind;
  /** The wire code (`not_found`, `tool_not_found`, `invalid_json`…), or the kind when there is none. */
  code: string;
  /** The HTTP status; 0 when no answer arrived (network, timeout). */
  status: number;
  /** The server's own message, as sent (for 400s it names the field). */
  serverMessage: string | undefined;
  cause?: unknown;
}

/** Every failure of a Switchboard call: an HTTP error answer, or no answer at all. */
export class SwitchboardError extends Error {
  readonly kind: SwitchboardErrorKind;
  readonly code: string;
  readonly status: number;
  readonly serverMessage: string | undefined;

  constructor(message: string, init: ErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.kind = init.kind;
    this.code = init.code;
    this.status = init.status;
    this.serverMessage = init.serverMessage;
  }
}

/** 401: the token is missing, unknown or expired. */
export class UnauthorizedError extends SwitchboardError {}
/** 403: a valid token acting outside its scope; the message carries the server's reason. */
export class ForbiddenError extends SwitchboardError {}
/** 404: no such session, run, route, or a tool not available to this caller. */
export class NotFoundError extends SwitchboardError {}
/** 400: invalid input; `serverMessage` names the field. */
export class BadRequestError extends SwitchboardError {}
/** 409: the thing already exists. */
export class ConflictError extends SwitchboardError {}
/** 413: the request body is over the server's 2 MB limit. */
export class PayloadTooLargeError extends SwitchboardError {}
/** 5xx: the server failed (or its configuration is invalid). */
export class ServerError extends SwitchboardError {}
/** The service could not be reached at all. */
export class NetworkError extends SwitchboardError {}
/** No answer within the client's timeout. */
export class TimeoutError extends SwitchboardError {}

/** The `{ code, message }` of either error shape: REST `{ error: { code } }`, `/tools/invoke` `{ error: { type } }`. */
function wireError(body: unknown): { code?: string; message?: string } {
  if (typeof body !== "object" || body === null) return {};
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return {};
  const { code, type, message } = error as Record<string, unknown>;
  const wireCode = typeof code === "string" ? code : typeof type === "string" ? type : undefined;
  return {
    ...(wireCode ? { code: wireCode } : {}),
    ...(typeof message === "string" ? { message } : {}),
  };
}

/** Maps an HTTP error answer to its typed error, with a message that says what to do next. */
export function errorFromResponse(status: number, body: unknown, what: string): SwitchboardError {
  const wire = wireError(body);
  const reason = wire.message;
  const base = { status, serverMessage: reason };
  if (status === 401)
    return new UnauthorizedError(
      `${what}: the token was refused (401): check the bearer token; a local \`npm start\` prints its tokens`,
      { ...base, kind: "unauthorized", code: wire.code ?? "unauthorized" },
    );
  if (status === 403)
    return new ForbiddenError(
      `${what}: forbidden: ${reason ?? "this token may not do that"}; use a token (or requester session) allowed to`,
      { ...base, kind: "forbidden", code: wire.code ?? "forbidden" },
    );
  if (status === 404) {
    // `/tools/invoke` answers OpenClaw's `not_found` for a tool, with its "Tool not available" message.
    const toolMissing = wire.code === "tool_not_found" || reason?.startsWith("Tool not available:");
    const hint = toolMissing
      ? "; the tool is not in this caller's tool profile, or this server does not serve it yet"
      : "; check the key or id (keys are full agent:<id>:… keys, or your own agent's short keys)";
    return new NotFoundError(`${what}: ${reason ?? "not found"}${hint}`, {
      ...base,
      kind: "not_found",
      code: wire.code ?? "not_found",
    });
  }
  if (status === 400)
    return new BadRequestError(`${what}: bad request: ${reason ?? "invalid input"}`, {
      ...base,
      kind: "bad_request",
      code: wire.code ?? "bad_request",
    });
  if (status === 409)
    return new ConflictError(`${what}: ${reason ?? "conflict"}`, {
      ...base,
      kind: "conflict",
      code: wire.code ?? "conflict",
    });
  if (status === 413)
    return new PayloadTooLargeError(
      `${what}: the request body is too large (${reason ?? "413"}); send less at once, e.g. import a transcript in parts`,
      { ...base, kind: "payload_too_large", code: wire.code ?? "payload_too_large" },
    );
  if (status >= 500) {
    const hint =
      wire.code === "config_invalid"
        ? "fix the server's configuration (its config/<environment>.json, checked by npm run config:check, or SWITCHBOARD_CONFIG)"
        : "try again; if it persists, check the server's log";
    return new ServerError(`${what}: server error ${status} (${reason ?? "no detail"}); ${hint}`, {
      ...base,
      kind: "server",
      code: wire.code ?? "internal",
    });
  }
  return new SwitchboardError(`${what}: unexpected HTTP ${status}${reason ? ` (${reason})` : ""}`, {
    ...base,
    kind: "http",
    code: wire.code ?? `http_${status}`,
  });
}

/** No answer: the service is down or unreachable. */
export function networkError(baseUrl: string, cause: unknown): NetworkError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new NetworkError(
    `cannot reach ${baseUrl} (${detail}): is the service running (\`npm start\`) and the URL right?`,
    { kind: "network", code: "network", status: 0, serverMessage: undefined, cause },
  );
}

/** The client's own timeout ran out before an answer arrived. */
export function timeoutError(what: string, timeoutMs: number, cause: unknown): TimeoutError {
  return new TimeoutError(
    `${what}: no answer within ${timeoutMs} ms; raise the client's timeout (the server may still finish)`,
    { kind: "timeout", code: "timeout", status: 0, serverMessage: undefined, cause },
  );
}
