/** Secrets shorter than this are masked whole; longer ones keep a recognisable head and tail. */
export const MIN_PARTIAL_MASK_LENGTH = 18;

/** Masks a secret: `***` when shorter than 18 chars, otherwise first 6 + `…` + last 4. */
export function maskSecret(value: string): string {
  if (value.length < MIN_PARTIAL_MASK_LENGTH) return "***";
  return `${value.slice(0, 6)}…${value.slice(-4)}`;
}

/** Whether a value already has the shape `maskSecret` produces, so it is never masked twice. */
export function isMasked(value: string): boolean {
  return value === "***" || (value.length === 11 && value[6] === "…");
}

/** Masks a value unless it is empty or already masked; reports whether anything changed. */
export function maskUnlessMasked(value: string): { text: string; redacted: boolean } {
  if (value === "" || isMasked(value)) return { text: value, redacted: false };
  return { text: maskSecret(value), redacted: true };
}
