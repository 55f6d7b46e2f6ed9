import { describe, expect, test } from "bun:test";
import { isScopeGranted } from "../../src/mcp/scopes.ts";

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
