/** The session on whose behalf a tool runs (SPEC §1), fixed by the credential (SPEC §3). */
export interface Requester {
  agentId: string;
  sessionKey: string;
  /**
   * The id of the requester's session (SPEC §23 "Generations"): its children, and visibility `tree`, are
   * this session's, not its key's. Absent when not known (a key never written); then by key alone.
   */
  sessionId?: string;
  /** Spawn depth of the requester session: 0 for a top-level session. */
  depth: number;
  /** The requester's agent runs sandboxed (`agents.list[].sandbox`). */
  sandboxed: boolean;
  /** The requester session is itself a sub-agent. */
  isSubagent: boolean;
  /** The run this call belongs to, when made with a run token. */
  runId?: string;
  /** How many sessions_send hops led to that run (SPEC §5.3 hop limit). */
  hop?: number;
  /**
   * That run is a collector child's, spawned with an outputSchema: it alone is offered
   * `structured_output` (SPEC §15).
   */
  structuredOutput?: true;
  /** That run is a collector child's: it is not offered `sessions_yield` (OpenClaw: a collector never pauses). */
  collector?: true;
}
