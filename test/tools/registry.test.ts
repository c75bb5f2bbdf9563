import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolName } from "../../src/config/schema";
import { toolRegistry } from "../../src/tools/registry";
import { type AnyTool, defineTool, type ToolContext } from "../../src/tools/types";

describe("toolRegistry", () => {
  it("holds each tool under its own name", () => {
    for (const [name, tool] of Object.entries(toolRegistry)) expect(tool?.name).toBe(name);
  });

  it("takes a defined tool as it is: its handler gets the params its schema parsed", async () => {
    const schema = z.object({ count: z.number().transform((count) => count + 1) });
    const tool = defineTool({
      name: "sessions_list" satisfies ToolName,
      description: "counts",
      schema,
      handler: async (_ctx, params) => ({ next: params.count * 2 }),
    });
    // No cast: a `ToolDefinition<Schema>` is an `AnyTool` (src/tools/types.ts).
    const held: AnyTool = tool;
    const params = held.schema.parse({ count: 1 });
    await expect(held.handler({} as ToolContext, params)).resolves.toEqual({ next: 4 });
  });
});
