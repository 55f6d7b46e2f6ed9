import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createLogger } from "../../src/core/log.ts";
import { defineTool, textResult } from "../../src/core/tool.ts";
import { dispatcherFor } from "../../src/mcp/protocol/dispatcher.ts";
import { isScopeGranted } from "../../src/core/scopes.ts";

describe("scope wildcards: each * stands for one or more whole segments", () => {
  const cases: [string[], string, boolean][] = [
    [["fs:read"], "fs:read", true],
    [["fs:read"], "boj:read", false],
    [["*"], "fs:read", true],
    [["*"], "table:data:read", true],
    [["*:read"], "fs:read", true],
    [["*:read"], "table:data:read", true],
    [["*:read"], "fs:write", false],
    [["boj:*"], "boj:read", true],
    [["boj:*"], "bojx:read", false],
    [["boj:*"], "boj", false],
    [["fs:re*"], "fs:read", false],
    [["table:data:*"], "table:data:read", true],
    [["table:data:*"], "table:read", false],
    [["fs"], "fs:read", false],
    [[], "fs:read", false],
    [["oj:read", "fs:read"], "fs:read", true],
    [["*:*"], "fs:read", true],
    [["*:*"], "fs", false],
  ];
  for (const [granted, needed, expected] of cases) {
    test(`${JSON.stringify(granted)} ${expected ? "grants" : "does not grant"} ${needed}`, () => {
      expect(isScopeGranted(granted, needed)).toBe(expected);
    });
  }
});

describe("an unknown tool's 'did you mean' names only tools the caller's scopes show", () => {
  const tool = (name: string, scope: string) =>
    defineTool({
      name,
      title: name,
      description: `${name}.`,
      input: v.object({}),
      annotations: { readOnlyHint: true },
      scope,
      handler: async () => textResult(name),
    });
  const dispatcher = dispatcherFor({
    toolsets: [{ name: "unit", tools: [tool("public_search", "unit:read"), tool("secret_export", "unit:admin")] }],
    log: createLogger("off"),
    toolNames: "portable",
    outputBudget: 10_000,
  });
  const call = async (name: string, scopes: readonly string[] | undefined) => {
    const context = {
      signal: new AbortController().signal,
      scopes,
      clientCapabilities: undefined,
      notify: () => {},
      logLevel: () => undefined,
      clientRoots: async () => undefined,
    };
    try {
      await dispatcher.handlers.get("tools/call")?.({ name, arguments: {} }, context);
      return "answered";
    } catch (error) {
      return (error as Error).message;
    }
  };

  test("a near miss of a hidden tool gets no suggestion", async () => {
    const message = await call("secret_exporr", ["unit:read"]);
    expect(message).toContain('Unknown tool: "secret_exporr"');
    expect(message).not.toContain('secret_export"?');
    expect(message).not.toContain("Did you mean");
  });

  test("a near miss of a visible tool is still named, and without a token every tool is", async () => {
    expect(await call("public_serch", ["unit:read"])).toContain('Did you mean "public_search"?');
    expect(await call("secret_exporr", undefined)).toContain('Did you mean "secret_export"?');
  });
});
