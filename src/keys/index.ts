// Session keys (SPEC §1): pure parsing, classification and canonicalization; no I/O.
export { AGENT_ID_PATTERN, normalizeAgentId } from "./agent-id";
export { type AnnounceTarget, announceTargetFromKey } from "./announce";
export { keyInputProblem, refineKeyInput } from "./bounds";
export { canonicalizeKeyInput, mainSessionKey } from "./canonicalize";
export { deriveChannel } from "./channel";
export { displayKey } from "./display";
export { classifyKind } from "./kind";
export { parseSessionKey } from "./parse";
export { isCronSessionKey } from "./rest";
export { isUuidLike, looksLikeSessionKey } from "./shape";
export type {
  ChatType,
  KeyInputResult,
  KeyOptions,
  ParsedSessionKey,
  SessionKind,
  SessionScope,
} from "./types";
