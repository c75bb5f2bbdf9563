import { schemaViolations } from "./output-schema";

// A collector child's structured result (SPEC §15, OpenClaw reference §6.3): what each
// `structured_output` call answers, and what the run's end reports. Pure: the session object keeps the
// state (src/session/store/structured-output.ts), so a resumed run sees the calls it made before.

/** The schemaError of a collector run that ended without recording a result. */
export const NOT_CALLED = "structured_output was not called";

/** The answer to any call once a result is recorded. */
export const ALREADY_RECORDED = "structured_output already recorded for this run";

/** After this many invalid results, every further call is rejected: the run will end failed. */
const MAX_INVALID_CALLS = 2;

/** How many violations an invalid result's message names. */
const VIOLATIONS_SHOWN = 3;

/** The tool's description as a collector child is offered it: its schema, verbatim. */
export function structuredOutputDescription(schema: Record<string, unknown>): string {
  return `Call exactly once as {"result": ...}, where result matches this JSON Schema: ${JSON.stringify(schema)}`;
}

/** What a run has recorded so far. */
export interface StructuredState {
  invalidCalls: number;
  /** The recorded (valid) result; `recorded` tells it apart from a recorded `null`. */
  recorded: boolean;
  result?: unknown;
  /** Why the latest invalid result was refused. */
  schemaError?: string;
}

export const EMPTY_STATE: StructuredState = { invalidCalls: 0, recorded: false };

/** What a `structured_output` call answers, as the tool returns it. */
export type StructuredAnswer =
  | { status: "recorded" }
  | { status: "error"; error: string }
  | { status: "rejected"; success: false; schemaError: string };

/**
 * One call, judged against the state before it: valid records the result; the first invalid one is a
 * tool error asking for one retry; the second (and any call after it) is rejected; any call after a
 * recorded result is an error. Returns the answer and the state after the call.
 */
export function judgeStructuredOutput(
  schema: Record<string, unknown>,
  state: StructuredState,
  result: unknown,
): { answer: StructuredAnswer; state: StructuredState } {
  if (state.recorded) return { answer: { status: "error", error: ALREADY_RECORDED }, state };
  if (state.invalidCalls >= MAX_INVALID_CALLS) {
    const schemaError = state.schemaError ?? NOT_CALLED;
    return { answer: { status: "rejected", success: false, schemaError }, state };
  }
  const violations = schemaViolations(schema, result);
  if (violations.length === 0) {
    return {
      answer: { status: "recorded" },
      state: { invalidCalls: state.invalidCalls, recorded: true, result },
    };
  }
  const schemaError = `structured_output validation failed: ${violations.slice(0, VIOLATIONS_SHOWN).join("; ")}`;
  const next = { invalidCalls: state.invalidCalls + 1, recorded: false, schemaError };
  if (next.invalidCalls < MAX_INVALID_CALLS)
    return {
      answer: { status: "error", error: `${schemaError}. Retry once with a corrected final result.` },
      state: next,
    };
  return { answer: { status: "rejected", success: false, schemaError }, state: next };
}

/** What a collector run's end reports: its recorded result, else why there is none. */
export function structuredOutcome(state: StructuredState): { structured?: unknown; schemaError?: string } {
  if (state.recorded) return { structured: state.result };
  return { schemaError: state.schemaError ?? NOT_CALLED };
}
