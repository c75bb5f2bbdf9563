/** snake_case column names ↔ camelCase fields, in one place for the object's SQLite and for D1. */
export function camelCase(name: string): string {
  return name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Reads a row into camelCase fields; SQL NULL becomes an absent field. */
export function fromColumns<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (value !== null && value !== undefined) out[camelCase(name)] = value;
  }
  return out as T;
}
