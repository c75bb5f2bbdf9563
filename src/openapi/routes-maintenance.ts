import { z } from "zod";
import { maintenanceRequestSchema } from "../routes/v1/maintenance";
import type { RouteDoc } from "./types";

const enforcedSchema = z.object({
  archived: z.number().int(),
  deleted: z.number().int(),
  skipped: z.number().int().describe("idle in the index, but busy again or with a run in flight: left alone"),
  searchRows: z.number().int(),
  runIndexRows: z.number().int(),
  grants: z.number().int(),
});

export const maintenanceReportSchema = z.object({
  mode: z.enum(["dry-run", "enforce"]),
  agents: z.array(
    z.object({
      agentId: z.string(),
      sessions: z.number().int(),
      messages: z.number().int().describe("messages the transcripts keep"),
      objectBytes: z.number().int().describe("the session objects' storage, as each last reported it"),
      wouldArchive: z.number().int(),
      wouldDelete: z.number().int(),
      largest: z.array(z.object({ sessionKey: z.string(), bytes: z.number().int() })),
      enforced: enforcedSchema.optional().describe("enforce: what this call did"),
      done: z.boolean().optional().describe("enforce: false while more is due for this agent"),
    }),
  ),
  shards: z.array(
    z.object({ shard: z.string().describe("the D1 binding: DB, DB_1, …"), bytes: z.number().int() }),
  ),
  done: z.boolean().optional().describe("enforce: false while more is due: call again"),
});

const example = {
  mode: "dry-run",
  agents: [
    {
      agentId: "main",
      sessions: 1204,
      messages: 58_311,
      objectBytes: 412_090_368,
      wouldArchive: 0,
      wouldDelete: 37,
      largest: [{ sessionKey: "agent:main:main", bytes: 9_830_400 }],
    },
  ],
  shards: [{ shard: "DB", bytes: 88_317_952 }],
};

/** SPEC §23 maintenance. */
export const maintenanceRouteDocs: RouteDoc[] = [
  {
    method: "POST",
    path: "/v1/maintenance",
    operationId: "runMaintenance",
    summary: "Storage report and retention",
    description:
      "Every configured agent's storage (sessions, kept messages, object bytes as each session last reported them into its index row, the five largest sessions) and what the retention policy (`session.maintenance`, `agents.list[].maintenance`) would archive or delete now, with each D1 shard's size. `enforce` also applies one bounded batch per agent — idle sessions deleted (`pruneAfter`) or archived (`archiveAfter`) by their own object, which refuses one with a run in flight or busy again; search rows past `searchRetention`; run index rows past `runRetention`; grants a week after they expired — and answers `done: false` while more is due (call again). Kinds whose policy says `mode: \"warn\"` are reported, never changed. Operator only.",
    tag: "Maintenance",
    auth: "bearer",
    body: { name: "MaintenanceRequest", schema: maintenanceRequestSchema, example: { mode: "dry-run" } },
    responses: [
      {
        status: 200,
        description: "The report.",
        schema: maintenanceReportSchema,
        name: "MaintenanceReport",
        example,
      },
    ],
    errors: [400, 401, 403, 500],
  },
];
