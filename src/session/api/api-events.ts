/** The session's event log as callers see it (SPEC §13): the types that cross the session object's face. */
import { z } from "zod";

export const eventKinds = [
  "created",
  "message",
  "run_queued",
  "run_started",
  "run_completed",
  "run_failed",
  "child_spawned",
  "child_completed",
  "steered",
  "patched",
  "delivery",
  "archived",
  "restored",
  "budget",
  "compacted",
  "erased",
] as const;
export type EventKind = (typeof eventKinds)[number];

/** Who caused an event: a person on a channel, another session, or the session and the service themselves. */
export const eventActorSchema = z.object({
  type: z.enum(["human", "agent", "system"]),
  id: z.string().optional(),
});
export type EventActor = z.infer<typeof eventActorSchema>;

export const sessionEventSchema = z.object({
  seq: z.number().int().positive(),
  kind: z.enum(eventKinds),
  actor: eventActorSchema,
  runId: z.string().optional(),
  occurredAt: z.number(),
  summary: z.string(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type SessionEvent = z.infer<typeof sessionEventSchema>;

/** `session_status` `changesSince`: what happened after a version, and whether some of it is gone. */
export interface StateChanges {
  stateVersion: number;
  events: SessionEvent[];
  truncated: boolean;
  earliestAvailableSequence: number;
  historyGap: boolean;
}

/** What a run stream carries beyond the run's session events (SPEC §14 "Run streams"). */
export const runStreamKinds = [
  "run_queued",
  "run_started",
  "delta",
  "progress",
  "tool_call",
  "tool_result",
  "steered",
  "run_completed",
  "run_failed",
] as const;
export type RunStreamKind = (typeof runStreamKinds)[number];

/** What a webhook agent posts to its run's stream (`POST /v1/runs/{runId}/progress`). */
export interface RunProgressPost {
  /** Reply text to add. */
  delta?: string;
  /** The whole reply so far: what extends what was streamed goes out as a delta; anything else restarts it. */
  text?: string;
  /** A status line for a typing view ("searching the docs…"): a `progress` item. */
  message?: string;
}

/** One item of a run stream: `seq` counts within the run. */
export interface RunStreamEvent {
  seq: number;
  kind: RunStreamKind;
  runId: string;
  occurredAt: number;
  data?: Record<string, unknown>;
}

/** A session watching this one (SPEC §13), from its cursor (table `watcher`). */
export interface WatcherInfo {
  watcherKey: string;
  /** The version the watcher has read up to. */
  lastSeen: number;
  /** When it started watching. */
  since: number;
  /** A notice is owed to it and not yet acknowledged. */
  noticePending: boolean;
}
