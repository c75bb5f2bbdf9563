import { z } from "zod";
import { GRANT_SCOPES } from "../auth/grant-token";
import { createGrantSchema } from "../routes/v1/grants";
import { historyQuerySchema } from "../routes/v1/session-history";
import { historyPageSchema } from "../tools/results";
import type { RouteDoc } from "./types";

const createdGrantSchema = z.object({
  grantId: z.string(),
  token: z.string().describe("`sbg_<grantId>.<secret>`: shown once, stored only as a hash"),
  expiresAt: z.number().int().describe("ms since the epoch, like every time on the REST API"),
  sessionKey: z.string().describe("canonical key"),
  scopes: z.array(z.enum(GRANT_SCOPES)),
});

export const listedGrantSchema = z.object({
  grantId: z.string(),
  sessionKey: z.string(),
  sessionId: z.string().optional().describe("the session it was made for (absent: a grant from before 0009)"),
  scopes: z.array(z.enum(GRANT_SCOPES)),
  createdAt: z.number().int(),
  expiresAt: z.number().int(),
  revokedAt: z.number().int().optional(),
});

const historyExample = {
  sessionKey: "agent:main:webchat:direct:visitor-7",
  messages: [
    { id: "m1", role: "user", content: "Hello", timestamp: 1767225600000 },
    { id: "m2", role: "assistant", content: [{ type: "text", text: "Hi!" }], timestamp: 1767225601000 },
  ],
  truncated: false,
  droppedMessages: false,
  contentTruncated: false,
  contentRedacted: false,
  bytes: 184,
  hasMore: false,
  totalMessages: 2,
};

/** Grants (SPEC §18) and the REST face of `sessions_history` a `read` grant reaches. */
export const grantRouteDocs: RouteDoc[] = [
  {
    method: "GET",
    path: "/v1/sessions/:key/history",
    operationId: "getSessionHistory",
    summary: "Read a session's history (safe view)",
    description:
      "The newest messages made safe, exactly as `sessions_history` answers (SPEC §5.2): reasoning and tool payloads removed, secrets masked, long texts cut. Never the exact export. Operators, agent tokens in their agent, and `read` grants of the session.",
    tag: "Sessions",
    auth: "bearerOrGrant",
    pathParams: { key: "The session key, URL-encoded." },
    query: {
      limit: "Newest N messages, 1–1000 (default 200).",
      offset: "Skip this many of the newest messages (`nextOffset` pages back).",
      includeTools: "`true` or `1` to keep toolResult/tool messages (default false).",
    },
    querySchema: historyQuerySchema,
    responses: [
      {
        status: 200,
        description: "A page of safe history.",
        schema: historyPageSchema,
        name: "HistoryPage",
        example: historyExample,
      },
    ],
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "GET",
    path: "/v1/grants",
    operationId: "listGrants",
    summary: "List grants",
    description:
      "Grants newest first (at most 500), revoked and expired ones included until a week after they expired (then the maintenance pass deletes them). The operator token lists every grant, an agent token its own agent's; a grant or run token is refused (403). Never a token or its hash.",
    tag: "Grants",
    auth: "bearer",
    responses: [
      {
        status: 200,
        description: "The grants.",
        schema: z.object({ grants: z.array(listedGrantSchema) }),
        name: "GrantList",
        example: {
          grants: [
            {
              grantId: "3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60",
              sessionKey: "agent:main:webchat:direct:visitor-7",
              sessionId: "6d0e7a52-1f3b-4c8e-a9d2-5b7c8e9f0a1b",
              scopes: ["read", "send"],
              createdAt: 1767225600000,
              expiresAt: 1767229200000,
            },
          ],
        },
      },
    ],
    errors: [401, 403, 500],
  },
  {
    method: "POST",
    path: "/v1/grants",
    operationId: "createGrant",
    summary: "Create a grant",
    description:
      "A token that acts on exactly one session with exactly the given scopes until it expires (`ttlSeconds`, 60 to 604800) or is revoked: `read` (get the session and its history), `send` (chat.send), `events` (its event and run streams). The operator token grants any session, an agent token its own agent's sessions. Run and grant tokens may not create grants.",
    tag: "Grants",
    auth: "bearer",
    body: {
      name: "CreateGrantRequest",
      schema: createGrantSchema,
      example: {
        sessionKey: "agent:main:webchat:direct:visitor-7",
        scopes: ["read", "send"],
        ttlSeconds: 3600,
      },
    },
    responses: [
      {
        status: 201,
        description: "Created. The token is shown only here.",
        schema: createdGrantSchema,
        example: {
          grantId: "3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60",
          token: "sbg_3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60.q8Zr3…",
          expiresAt: 1767229200000,
          sessionKey: "agent:main:webchat:direct:visitor-7",
          scopes: ["read", "send"],
        },
      },
    ],
    errors: [400, 401, 403, 413, 500],
  },
  {
    method: "DELETE",
    path: "/v1/grants/:grantId",
    operationId: "revokeGrant",
    summary: "Revoke a grant",
    description:
      "The grant's token is refused (401) from now on. The operator token revokes any grant, an agent token its own agent's. Revoking twice is not an error.",
    tag: "Grants",
    auth: "bearer",
    pathParams: { grantId: "The grant's id (from `POST /v1/grants`)." },
    responses: [
      {
        status: 200,
        description: "Revoked.",
        schema: z.object({ grantId: z.string(), revoked: z.literal(true) }),
        example: { grantId: "3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60", revoked: true },
      },
    ],
    errors: [401, 403, 404, 500],
  },
];
