import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { authenticate, bearerToken } from "../auth/identity";
import { loadConfig } from "../config/load";
import { AppError } from "../errors";

/** Loads the validated configuration; an invalid document fails every request (SPEC §2). */
export const requireConfig = createMiddleware<AppEnv>(async (c, next) => {
  const loaded = loadConfig(c.env);
  if (!loaded.ok) throw new AppError("config_invalid", loaded.error);
  c.set("config", loaded.config);
  await next();
});

/** Requires a valid bearer token; a missing or bad one is 401 with no detail (SPEC §3). */
export const requireIdentity = createMiddleware<AppEnv>(async (c, next) => {
  const identity = await authenticate(c.env, bearerToken(c.req.header("Authorization")));
  if (!identity) throw new AppError("unauthorized", "unauthorized");
  c.set("identity", identity);
  await next();
});

/** Reads a JSON body; malformed JSON is a 400 that says so. */
export async function readJsonBody(request: Request): Promise<unknown> {
  return parseJsonText(await request.text());
}

/** Parses JSON text already read (signed bodies are verified on their exact bytes first). */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", "request body is not valid JSON");
  }
}
