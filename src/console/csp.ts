import { secureHeaders } from "hono/secure-headers";

/**
 * Every console response, pages, assets, fragments and errors alike: a strict Content-Security-Policy
 * (only this origin's script and stylesheet, no inline code, no frames) with Trusted Types, so the one
 * place that puts HTML into the page (the client's `console` policy, for fragments this Worker rendered
 * and escaped) is the only one that can.
 */
export const consoleHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
    requireTrustedTypesFor: ["'script'"],
    trustedTypes: ["console"],
  },
  referrerPolicy: "no-referrer",
  crossOriginResourcePolicy: "same-origin",
});
