import { expect } from "vitest";
import { ADMIN } from "./auth";
import { call } from "./http";

/** A grant made as the operator (unless told) for ten minutes; expects 201. */
export async function grantFor(
  sessionKey: string,
  scopes: string[],
  token: string = ADMIN,
): Promise<{ grantId: string; token: string }> {
  const created = await call<{ grantId: string; token: string }>("POST", "/v1/grants", {
    token,
    body: { sessionKey, scopes, ttlSeconds: 600 },
  });
  expect(created.status, created.text).toBe(201);
  return created.json;
}
