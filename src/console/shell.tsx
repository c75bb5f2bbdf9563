import { PRODUCT_NAME } from "../version";
import { ICON_PATH } from "./favicon";

export interface ShellProps {
  /** The fragment this page shows, fetched by the client with the signed-in token. */
  fragment: string;
  title: string;
  assets: Record<string, string>;
}

/**
 * Every console page is this shell: it holds no data (the token lives in the tab's sessionStorage and
 * is sent as a bearer header, never a cookie), so the client fetches the page's fragment and shows it,
 * or the sign-in form when there is no token yet.
 */
export function Shell({ fragment, title, assets }: ShellProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${title} · ${PRODUCT_NAME} console`}</title>
        <link rel="icon" href={ICON_PATH} type="image/svg+xml" />
        <link rel="stylesheet" href={assets["console.css"]} />
        <link rel="modulepreload" href={assets["console-live.js"]} />
        <script type="module" src={assets["console.js"]} />
      </head>
      <body>
        <a class="skip" href="#view">
          Skip to content
        </a>
        <header class="bar">
          <a class="brand" href="/console">
            {PRODUCT_NAME} console
          </a>
          <nav id="nav" aria-label="Console" hidden>
            <a href="/console/sessions" data-operator>
              Sessions
            </a>
            <a href="/console/deliveries" data-operator>
              Deliveries
            </a>
            <a href="/console/channels" data-operator>
              Channels
            </a>
            <a href="/console/cron" data-operator>
              Schedules
            </a>
            <a href="/console/storage" data-operator>
              Storage
            </a>
            <span id="who" class="who" />
            <button type="button" id="sign-out">
              Sign out
            </button>
          </nav>
        </header>
        <div id="flash" class="flash" role="status" aria-live="polite" />
        <main id="view" data-fragment={fragment} tabindex={-1}>
          <noscript>
            <p class="notice">
              The console needs JavaScript: it keeps your token in this tab and sends it with each request.
            </p>
          </noscript>
        </main>
        <template id="sign-in">
          <section class="sign-in">
            <h1>Sign in</h1>
            <p>
              Paste the operator token (<code>SWITCHBOARD_ADMIN_TOKEN</code>) to see every session, or a grant
              token to see one session. It stays in this tab only (sessionStorage) and is sent as a bearer
              header.
            </p>
            <form id="sign-in-form">
              <label for="token">Token</label>
              <input id="token" name="token" type="password" autocomplete="off" required />
              <button type="submit">Sign in</button>
              <p id="sign-in-error" class="error" role="alert" />
            </form>
          </section>
        </template>
      </body>
    </html>
  );
}
