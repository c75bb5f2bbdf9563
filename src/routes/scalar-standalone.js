// Scalar's browser bundle (one self-contained IIFE) as a string, through wrangler.toml's Text module rule.
// A .js re-export because the package's `exports` hide dist/browser/ and TypeScript cannot type a
// relative import of a .js file; scalar-standalone.d.ts beside this file gives it its type.
export { default } from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js";
