// The client package's types are written out by hand, so it is published with no server code; the server's
// zod schemas and types stay the source. Checked at compile time (`npm run typecheck`, tsc -p test): each
// pair below must be the same type, field for field and optional for optional, or this file fails to
// compile. A change to a schema the client mirrors makes the same change in packages/client/src/.
import type { z } from "zod";
import type * as Client from "../../packages/client/src/index";
import type { jobInputSchema, jobPatchSchema, jobSchema, runSchema } from "../../src/cron/job-schema";
import type { listedGrantSchema } from "../../src/openapi/routes-grants";
import type { maintenanceReportSchema } from "../../src/openapi/routes-maintenance";
import type { cronQuerySchema } from "../../src/routes/v1/cron";
import type { erasedCountsSchema } from "../../src/routes/v1/erasure-schemas";
import type { createGrantSchema } from "../../src/routes/v1/grants";
import type { waitResult } from "../../src/routes/v1/run-view";
import type {
  chatSendSchema,
  createSessionSchema,
  patchSessionSchema,
} from "../../src/routes/v1/session-schemas";
import type * as Session from "../../src/session/api";
import type { StructuredAnswer } from "../../src/subagents/structured-result";
import type { SubagentItem } from "../../src/subagents/targets";
import type { agentsList } from "../../src/tools/agents-list";
import type { agentsWait } from "../../src/tools/agents-wait";
import type { sessionStatus } from "../../src/tools/session-status";
import type { sessions } from "../../src/tools/sessions";
import type { sessionsHistory } from "../../src/tools/sessions-history";
import type { sessionsList } from "../../src/tools/sessions-list";
import type { sessionsSearch } from "../../src/tools/sessions-search";
import type { sessionsSend } from "../../src/tools/sessions-send";
import type { sessionsSpawn } from "../../src/tools/sessions-spawn";
import type { sessionsYield } from "../../src/tools/sessions-yield";
import type { structuredOutput } from "../../src/tools/structured-output";
import type { subagents } from "../../src/tools/subagents";
import type { ToolFailure } from "../../src/tools/types";
import type { TranscriptMessage, transcriptMessageShape } from "../../src/transcript/message";

/** A type with its intersections and aliases flattened, all the way down, so that only its shape counts. */
type Plain<T> = T extends (infer Item)[]
  ? Plain<Item>[]
  : T extends object
    ? { [K in keyof T]: Plain<T[K]> }
    : T;

/** True only when A and B are the same type (not merely assignable either way: optional fields count). */
type Same<A, B> =
  (<T>() => T extends Plain<A> ? 1 : 2) extends <T>() => T extends Plain<B> ? 1 : 2 ? true : false;

/** Compiles only for `true`. */
type Holds<T extends true> = T;

export type ClientTypesMatchTheServer = [
  // Tool args: each tool's schema, input side.
  Holds<Same<Client.SessionsListArgs, z.input<typeof sessionsList.schema>>>,
  Holds<Same<Client.SessionsHistoryArgs, z.input<typeof sessionsHistory.schema>>>,
  Holds<Same<Client.SessionsSendArgs, z.input<typeof sessionsSend.schema>>>,
  Holds<Same<Client.SessionStatusArgs, z.input<typeof sessionStatus.schema>>>,
  Holds<Same<Client.AgentsListArgs, z.input<typeof agentsList.schema>>>,
  Holds<Same<Client.SessionsSpawnArgs, z.input<typeof sessionsSpawn.schema>>>,
  Holds<Same<Client.SessionsYieldArgs, z.input<typeof sessionsYield.schema>>>,
  Holds<Same<Client.SubagentsArgs, z.input<typeof subagents.schema>>>,
  Holds<Same<Client.SessionsArgs, z.input<typeof sessions.schema>>>,
  Holds<Same<Client.SessionsSearchArgs, z.input<typeof sessionsSearch.schema>>>,
  Holds<Same<Client.AgentsWaitArgs, z.input<typeof agentsWait.schema>>>,
  Holds<Same<Client.StructuredOutputArgs, z.input<typeof structuredOutput.schema>>>,
  // REST bodies.
  Holds<Same<Client.CreateSessionBody, z.input<typeof createSessionSchema>>>,
  Holds<Same<Client.PatchSessionBody, z.input<typeof patchSessionSchema>>>,
  Holds<Same<Client.SendMessageBody, z.input<typeof chatSendSchema>>>,
  Holds<Same<Client.CreateGrantBody, z.input<typeof createGrantSchema>>>,
  Holds<Same<Client.CronJobInput, z.input<typeof jobInputSchema>>>,
  Holds<Same<Client.CronJobPatch, z.input<typeof jobPatchSchema>>>,
  Holds<Same<Client.CronAgentQuery, z.input<typeof cronQuerySchema>>>,
  Holds<Same<Client.CronJob, z.output<typeof jobSchema>>>,
  Holds<Same<Client.CronRun, z.output<typeof runSchema>>>,
  // The import route takes any value and checks it against the message shape.
  Holds<Same<Client.ImportMessage, z.input<typeof transcriptMessageShape>>>,
  // What the answers are made of.
  Holds<Same<Client.TranscriptMessage, TranscriptMessage>>,
  Holds<Same<Client.SessionRow, Session.SessionRow>>,
  Holds<Same<Client.ImportReceipt, Session.ImportReceipt>>,
  Holds<Same<Client.CompactionAnswer, Session.CompactionAnswer>>,
  Holds<Same<Client.ErasedCounts, z.output<typeof erasedCountsSchema>>>,
  Holds<Same<Client.RunRecord, Session.RunRecord>>,
  Holds<Same<Client.RunProgress, Session.RunProgress>>,
  Holds<Same<Client.RunWaitResult, ReturnType<typeof waitResult>>>,
  Holds<Same<Client.DeliveryKind, Session.DeliveryKind>>,
  Holds<Same<Client.DeliveryStatus, Session.DeliveryStatus>>,
  Holds<Same<Client.DeliveryRecord, Session.DeliveryRecord>>,
  Holds<Same<Client.SessionEvent, Session.SessionEvent>>,
  Holds<Same<Client.SubagentItem, SubagentItem>>,
  Holds<Same<Client.ToolFailure, ToolFailure>>,
  Holds<Same<Client.StructuredAnswer, StructuredAnswer>>,
  Holds<Same<Client.ListedGrant, z.output<typeof listedGrantSchema>>>,
  Holds<Same<Client.MaintenanceReport, z.output<typeof maintenanceReportSchema>>>,
  Holds<
    Same<
      Omit<Client.SessionsHistoryPage, "sessionKey" | "messages" | "truncated">,
      Omit<Session.HistoryPage, "messagesJson">
    >
  >,
];
