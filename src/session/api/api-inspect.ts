/** What the operator console reads of one session in one call: part of the public face (api/index.ts). */
import type { SessionEvent, WatcherInfo } from "./api-events";
import type { RunRecord } from "./api-runs";

/** At most this many runs and this many events in one inspection. */
export const INSPECT_LIMIT = 50;

/** A session's recent activity: runs (without their replies: the transcript has them), watchers, events. */
export interface SessionInspection {
  stateVersion: number;
  /** Newest first, at most INSPECT_LIMIT. */
  runs: RunRecord[];
  watchers: WatcherInfo[];
  /** Newest first, at most INSPECT_LIMIT. */
  events: SessionEvent[];
}
