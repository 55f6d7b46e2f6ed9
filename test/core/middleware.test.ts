/** The toolsets' handler middleware (core/tool.ts withMiddleware): order, and what each step sees. */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { type ToolContext, type ToolMiddleware, defineTool, withMiddleware } from "../../src/core/tool.ts";

const echo = defineTool({
  name: "echo",
  title: "Echo",
  description: "Says what it was given.",
  input: v.object({ word: v.string() }),
  annotations: { readOnlyHint: true },
  scope: "test:read",
  handler: async (args) => ({ content: [{ type: "text", text: args.word }] }),
});

const tag =
  (label: string, seen: string[]): ToolMiddleware =>
  (next, tool) =>
  async (args, context) => {
    seen.push(`${label}>${tool.name}`);
    const result = await next(args, context);
    const first = result.content[0];
    return { content: [{ type: "text", text: `${label}(${first?.type === "text" ? first.text : ""})` }] };
  };

describe("withMiddleware", () => {
  test("the first step is outermost; each step sees the tool it wraps; the definition is otherwise unchanged", async () => {
    const seen: string[] = [];
    const [wrapped] = withMiddleware([echo], [tag("a", seen), tag("b", seen)]);
    const result = await wrapped?.handler({ word: "hi" }, {} as ToolContext);
    expect(result?.content[0]).toEqual({ type: "text", text: "a(b(hi))" });
    expect(seen).toEqual(["a>echo", "b>echo"]);
    expect({ ...wrapped, handler: undefined }).toEqual({ ...echo, handler: undefined });
  });

  test("no steps leave the handler as it is", () => {
    expect(withMiddleware([echo], [])[0]?.handler).toBe(echo.handler);
  });
});
