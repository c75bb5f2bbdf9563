import type { IndexRow } from "../record/index-row";

/**
 * The session's D1 index row as its last write that landed (table `index_landed`), for the next write
 * to set only what differs (SPEC §24). Undefined when none landed in this generation of the session.
 */
export function landedIndexRow(sql: SqlStorage): IndexRow | undefined {
  const stored = sql.exec<{ row: string }>("SELECT row FROM index_landed WHERE id = 1").toArray()[0];
  return stored ? (JSON.parse(stored.row) as IndexRow) : undefined;
}

/** Keeps a written row as landed, unless a newer one landed first (an older write must not hide it). */
export function recordLandedIndexRow(sql: SqlStorage, row: IndexRow): void {
  sql.exec(
    `INSERT INTO index_landed (id, version, row) VALUES (1, ?1, ?2)
     ON CONFLICT (id) DO UPDATE SET version = excluded.version, row = excluded.row
     WHERE excluded.version >= index_landed.version`,
    Number(row.version),
    JSON.stringify(row),
  );
}
