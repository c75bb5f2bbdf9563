// Column names are few and every row read converts each of them: convert each name once.
const camelNames = new Map<string, string>();

/** snake_case column names ↔ camelCase fields, in one place for the object's SQLite and for D1. */
export function camelCase(name: string): string {
  let camel = camelNames.get(name);
  if (camel === undefined) {
    camel = name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    camelNames.set(name, camel);
  }
  return camel;
}

/** Reads a row into camelCase fields; SQL NULL becomes an absent field. */
export function fromColumns<T>(row: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (value !== null && value !== undefined) out[camelCase(name)] = value;
  }
  return out as T;
}

/** camelCase field → snake_case column (the record's fields name their columns). */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
