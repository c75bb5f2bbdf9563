import { eraseSenderAnswerSchema, eraseSenderSchema } from "../routes/v1/erasure-schemas";
import type { RouteDoc } from "./types";

/** Erasure of a person (SPEC §23); `DELETE /v1/sessions/{key}?erase=true` is in routes-sessions.ts. */
export const erasureRouteDocs: RouteDoc[] = [
  {
    method: "POST",
    path: "/v1/erase",
    operationId: "eraseSender",
    summary: "Erase a person",
    description:
      "For a person's right to be forgotten (SPEC §23, the operator only): erases every direct session of that sender on that channel as `DELETE /v1/sessions/{key}?erase=true` does (the sessions, their children and the copies of their text elsewhere), and replaces the messages they said in the channel's groups (and a main session every peer shares) by `[erased]`, their search rows deleted. Each session changed logs an `erased` event, without the text; the search index is then optimized. Repeating it finishes an erasure a failure cut short and otherwise changes nothing.",
    tag: "Sessions",
    auth: "bearer",
    body: {
      name: "EraseSenderRequest",
      schema: eraseSenderSchema,
      example: { channel: "telegram", senderId: "123456789" },
    },
    responses: [
      {
        status: 200,
        description: "What was erased, per store.",
        schema: eraseSenderAnswerSchema,
        name: "EraseSenderAnswer",
        example: {
          erased: {
            sessions: 1,
            messages: 3,
            searchRows: 3,
            children: 0,
            sent: 0,
            notices: 0,
            quotes: 1,
            summaries: 0,
            pending: 0,
          },
        },
      },
    ],
    errors: [400, 401, 403, 500],
  },
];
