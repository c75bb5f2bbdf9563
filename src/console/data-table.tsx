import type { Child } from "hono/jsx";

/** One column of a console table: its header, and the cell it makes of a row. */
export interface Column<Row> {
  name: string;
  cell: (row: Row) => Child;
  /** The cell's class (`last-error`, `actions`, …). */
  class?: string;
  /** The row's own name (a `th scope="row"`): a card's title when the table is stacked. */
  head?: boolean;
  /** A long cell (an error, the actions): a whole line of its card when the table is stacked. */
  wide?: boolean;
}

/**
 * The console's tables. The header names each column once, and each cell carries its column's name
 * (`data-label`), so where the table is narrower than its columns (a phone, a side column) the stylesheet
 * shows each row as a card of labelled values instead of hiding columns off to the side. A false or
 * undefined column is left out.
 */
export function DataTable<Row>(props: {
  class: string;
  columns: (Column<Row> | false | undefined)[];
  rows: Row[];
  /** The row's own attributes (`data-key`, `data-delivery`, …): what scripts and tests find it by. */
  rowAttrs: (row: Row) => Record<string, string>;
  caption?: string;
}) {
  const columns = props.columns.filter((column): column is Column<Row> => Boolean(column));
  return (
    <div class="table-wrap">
      <table class={props.class}>
        {props.caption === undefined ? null : <caption class="visually-hidden">{props.caption}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{column.name}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr {...props.rowAttrs(row)}>
              {columns.map((column) => {
                const classes = [column.class, column.wide ? "wide" : undefined].filter(Boolean).join(" ");
                const attrs = { class: classes || undefined, "data-label": column.name };
                return column.head ? (
                  <th scope="row" {...attrs}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td {...attrs}>{column.cell(row)}</td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
