import type { Context } from "hono";
import { stringifyJson } from "../text/json-text";

/** `c.json(value)`, with the JsonText values inside written as they are (a history page's messages). */
export const jsonAnswer = (c: Context, value: unknown) =>
  c.body(stringifyJson(value), 200, { "Content-Type": "application/json" });
