// The console's browser files are Text modules (wrangler.toml `[[rules]]`): importing one gives its text.
declare module "*/assets/console.js" {
  const text: string;
  export default text;
}
declare module "*/assets/console.css" {
  const text: string;
  export default text;
}
declare module "*/assets/console-live.js" {
  const text: string;
  export default text;
}
