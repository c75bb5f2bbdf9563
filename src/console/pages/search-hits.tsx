import type { SearchHit } from "../../tools/sessions-search";
import { Empty, KeyText, sessionHref, When } from "../ui";

/**
 * One page of message hits, best first: each links to its message on the session's page (`?at=<id>#m-<id>`: the transcript page holding it).
 * The snippet is the safe text sessions_search returns, shown as text (JSX escapes it).
 */
export function SearchHits(props: { hits: SearchHit[]; indexing: boolean; next?: string | undefined }) {
  return (
    <section class="search-results" aria-labelledby="hits-title">
      <h2 id="hits-title">Messages found</h2>
      {props.indexing ? (
        <p class="notice">Indexing is in progress: some recent messages may not be found yet.</p>
      ) : null}
      {props.hits.length === 0 ? (
        <Empty>No message matches every word.</Empty>
      ) : (
        <ol class="hits">
          {props.hits.map((hit) => (
            <li data-key={hit.canonicalKey}>
              <a
                href={`${sessionHref(hit.canonicalKey)}?at=${encodeURIComponent(hit.messageId)}#m-${encodeURIComponent(hit.messageId)}`}
              >
                <KeyText value={hit.sessionKey} />
              </a>{" "}
              <span class="role">{hit.role}</span> <When at={hit.timestamp} />
              <p class="snippet">{hit.snippet}</p>
            </li>
          ))}
        </ol>
      )}
      {props.next ? (
        <a class="next" href={props.next}>
          Next page
        </a>
      ) : null}
      <p>
        <a href="/console/sessions">All sessions</a>
      </p>
    </section>
  );
}
