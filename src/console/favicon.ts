import type { Context } from "hono";

/**
 * The console's icon: two pairs of jacks joined by crossed cords, white on the console's accent blue.
 * Vector, so one small text serves every size a browser asks for.
 */
const ICON = [
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">',
  '<rect width="32" height="32" rx="7" fill="#1f5fbf"/>',
  '<path d="M9 10 23 22M9 22 23 10" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/>',
  '<g fill="#fff"><circle cx="9" cy="10" r="3.4"/><circle cx="23" cy="10" r="3.4"/>',
  '<circle cx="9" cy="22" r="3.4"/><circle cx="23" cy="22" r="3.4"/></g>',
  "</svg>",
].join("");

/** Where the console's pages name their icon; `/favicon.ico`, which browsers ask for by themselves, answers the same. */
export const ICON_PATH = "/favicon.ico";

/** `GET /favicon.ico`: the icon, an SVG said to be one by its type, cached for a day. */
export const favicon = (c: Context) =>
  c.body(ICON, 200, {
    "Content-Type": "image/svg+xml",
    "Cache-Control": "public, max-age=86400",
    "X-Content-Type-Options": "nosniff",
  });
