import type { Child } from "hono/jsx";

/**
 * The older part of a long list, folded: the newest few stay in sight and the page stays short however
 * busy the session. `id` keeps it open or shut across a live reload (console.js restores `data-key`).
 */
export function Older(props: { id: string; count: number; what: string; children: Child }) {
  return (
    <details class="older" data-key={props.id}>
      <summary>{`${props.count} ${props.what}`}</summary>
      {props.children}
    </details>
  );
}
