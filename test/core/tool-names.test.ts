/**
 * Tool names every mainstream client accepts: Claude Desktop refuses a whole server when one
 * listed name breaks ^[a-zA-Z0-9_-]{1,64}$ (Codex CLI and Copilot CLI fail the same way).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PORTABLE_TOOL_NAME } from "../../src/core/tool.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { runCli, startStdioServer } from "../support/mcp.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-names-"));
  writeFileSync(join(root, "a.txt"), "a");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every non-empty combination of the shipped toolsets. */
function combinations(): string[][] {
  const names = toolsetModules.map((module) => module.name);
  const all: string[][] = [];
  for (let mask = 1; mask < 1 << names.length; mask++) all.push(names.filter((_, i) => mask & (1 << i)));
  return all;
}

/** Flags that satisfy each toolset's required configuration without reaching anything. */
const configure = () => ["--oj-base-url", "http://127.0.0.1:9", "--root", root];

describe("portable tool names (default)", () => {
  for (const combination of combinations()) {
    test(`--toolsets ${combination.join(",")}: every listed name matches ${PORTABLE_TOOL_NAME}, and instructions name the same tools`, async () => {
      const server = await startStdioServer({ args: ["--toolsets", combination.join(","), ...configure()] });
      try {
        const { tools } = await server.client.listTools();
        expect(tools.length).toBeGreaterThan(0);
        for (const tool of tools) expect(tool.name).toMatch(PORTABLE_TOOL_NAME);
        const instructions = server.client.getInstructions() ?? "";
        for (const tool of tools) expect(instructions).toContain(tool.name);
        for (const name of combination) expect(instructions).toContain(`${name} (`);
      } finally {
        await server.close();
      }
    });
  }
});

describe("--tool-names seed and the seed's names on call", () => {
  test("--tool-names seed lists fs.search_by_time; the default lists fs_search_by_time", async () => {
    const seed = await startStdioServer({ args: ["--toolsets", "fs", "--root", root, "--tool-names", "seed"] });
    const portable = await startStdioServer({ args: ["--toolsets", "fs", "--root", root] });
    try {
      expect((await seed.client.listTools()).tools.map((tool) => tool.name)).toEqual(["fs.search_by_time"]);
      expect((await portable.client.listTools()).tools.map((tool) => tool.name)).toEqual(["fs_search_by_time"]);
      expect(seed.client.getInstructions()).toContain("fs.search_by_time");
    } finally {
      await Promise.all([seed.close(), portable.close()]);
    }
  });

  test("both names call the same tool with identical results; errors name the tool as the caller did", async () => {
    const server = await startStdioServer({ args: ["--toolsets", "fs", "--root", root] });
    try {
      const byPortable = (await server.client.callTool({
        name: "fs_search_by_time",
        arguments: { timeField: "modified" },
      })) as unknown as {
        structuredContent: { matches: { path: string }[] };
      };
      const bySeed = (await server.client.callTool({
        name: "fs.search_by_time",
        arguments: { timeField: "modified" },
      })) as unknown as typeof byPortable;
      expect(byPortable.structuredContent.matches.map((m) => m.path)).toEqual(["a.txt"]);
      expect(bySeed.structuredContent.matches).toEqual(byPortable.structuredContent.matches);
      const bad = (await server.client.callTool({ name: "fs.search_by_time", arguments: { limit: 0 } })) as {
        isError: boolean;
        content: { text: string }[];
      };
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toContain("fs.search_by_time");
    } finally {
      await server.close();
    }
  });

  test("mcpkit call accepts both names", async () => {
    for (const name of ["fs_search_by_time", "fs.search_by_time"]) {
      const { code, stdout } = await runCli([
        "call",
        name,
        '{"timeField":"modified"}',
        "--toolsets",
        "fs",
        "--root",
        root,
      ]);
      expect(code).toBe(0);
      expect(JSON.parse(stdout).structuredContent.matches[0].path).toBe("a.txt");
    }
  });

  test("a bad --tool-names value is a usage error naming the choices", async () => {
    const { code, stderr, stdout } = await runCli(["tools", "--tool-names", "dotted"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("--tool-names (MCPKIT_TOOL_NAMES)");
    expect(stderr).toContain("portable or seed");
  });
});

describe("a mistyped tool name gets a suggestion", () => {
  test("tools/call suggests the nearest name", async () => {
    const server = await startStdioServer({ args: ["--toolsets", "boj"] });
    try {
      await expect(server.client.callTool({ name: "boj_get_datacode", arguments: {} })).rejects.toThrow(
        /Did you mean "boj_get_data_code"\?/,
      );
    } finally {
      await server.close();
    }
  });
});
