/** The text of `@scalar/api-reference/dist/browser/standalone.js`. */
declare const standalone: string;
export default standalone;
