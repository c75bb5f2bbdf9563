import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { jsonAnswer } from "../json-answer";
import { readJsonBody } from "../middleware";
import { runToolCall } from "../tool-call";

/** `POST /v1/tools/{name}`: the args are the body; the result is the tool's details. */
export const toolRoutes = new Hono<AppEnv>().post("/:name", async (c) => {
  const details = await runToolCall(c, c.req.param("name"), await readJsonBody(c.req.raw), {
    sessionKey: c.req.header("X-Switchboard-Session"),
    agentId: c.req.header("X-Switchboard-Agent"),
  });
  return jsonAnswer(c, details);
});
