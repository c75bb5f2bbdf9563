import { DurableObject } from "cloudflare:workers";
export class SessionObject extends DurableObject {}
export default { fetch: () => new Response("ok") } satisfies ExportedHandler<Env>;
