/**
 * Adding a toolset is one folder plus one line in src/toolsets/index.ts: this test does exactly
 * that in a copy of the sources (a throwaway `echo` toolset with an option and a required
 * variable) and checks that every place a user meets a toolset picks it up: --help, --toolsets,
 * `mcpkit tools` (on and off), tools/list and tools/call over stdio, and the missing-config error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";

const ECHO_TOOLSET = `import * as v from "valibot";
import { readOptions } from "../../core/options.ts";
import { defineTool, textResult } from "../../core/tool.ts";
import { defineToolsetModule } from "../../core/toolset-module.ts";

const options = [{ name: "echo-prefix", env: "ECHO_PREFIX", kind: "string", valueName: "TEXT", help: "text put before every echo" }] as const;

export const echo = defineToolsetModule<{ prefix: string }>({
  name: "echo",
  summary: "echo_say: repeats what it is given",
  options,
  configure(values) {
    const read = readOptions(v.object({ "echo-prefix": v.optional(v.string()) }), options, values);
    return read["echo-prefix"] === undefined ? { missing: "--echo-prefix TEXT (or ECHO_PREFIX)" } : { prefix: read["echo-prefix"] };
  },
  create(config) {
    const say = defineTool({
      name: "echo_say",
      title: "Echo",
      description: "Repeats the text it is given, after the configured prefix.",
      input: v.object({ text: v.pipe(v.string(), v.description("what to repeat")) }),
      annotations: { readOnlyHint: true },
      scope: "echo:read",
      handler: async ({ text }) => textResult(config.prefix + text),
    });
    return { name: "echo", tools: [say] };
  },
});
`;

let tree: string;
beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), "mcpkit-registry-"));
  cpSync(join(REPO_ROOT, "src"), join(tree, "src"), { recursive: true });
  cpSync(join(REPO_ROOT, "package.json"), join(tree, "package.json"));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(tree, "node_modules"));
  // The whole change: one folder ...
  mkdirSync(join(tree, "src/toolsets/echo"));
  writeFileSync(join(tree, "src/toolsets/echo/index.ts"), ECHO_TOOLSET);
  // ... and one registry line (plus its import).
  const registry = join(tree, "src/toolsets/index.ts");
  const source = readFileSync(registry, "utf8");
  const withImport = `import { echo } from "./echo/index.ts";\n${source}`;
  const withLine = withImport.replace(/(export const toolsetModules[^=]*=\s*\[)/, "$1\n  echo,");
  expect(withLine).not.toBe(withImport);
  writeFileSync(registry, withLine);
});
afterAll(() => rmSync(tree, { recursive: true, force: true }));

const mcpkit = (args: string[], env: Record<string, string> = {}) =>
  runProcess([process.execPath, join(tree, "src/main.ts"), ...args], { cwd: tree, env: testEnv(env) });

describe("a throwaway toolset added with one folder and one registry line", () => {
  test("--help describes it and its option with the variable", async () => {
    const { code, stdout } = await mcpkit(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("echo: echo_say: repeats what it is given");
    expect(stdout).toContain("--echo-prefix TEXT");
    expect(stdout).toContain("[ECHO_PREFIX]");
    expect(stdout).toMatch(/--toolsets LIST.*echo, boj, oj, fs, or all/s);
  });

  test("mcpkit tools lists it when configured, and says why it is off when not", async () => {
    const on = await mcpkit(["tools", "--echo-prefix", "> "]);
    expect(on.stdout).toMatch(/^echo_say\s+Echo$/m);
    const off = await mcpkit(["tools"]);
    expect(off.stdout).toMatch(/^echo: off, needs --echo-prefix TEXT \(or ECHO_PREFIX\)$/m);
    const named = await mcpkit(["tools", "--toolsets", "echo"]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain("toolset echo needs --echo-prefix TEXT (or ECHO_PREFIX)");
  });

  test("its tool is listed and called over stdio with the SDK client; its variable is read", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(tree, "src/main.ts"), "--toolsets", "echo"],
      env: testEnv({ ECHO_PREFIX: "echo: " }),
      cwd: tree,
      stderr: "pipe",
    });
    const client = new Client({ name: "registry-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["echo_say"]);
      const result = (await client.callTool({ name: "echo_say", arguments: { text: "hi" } })) as {
        content: { text: string }[];
      };
      expect(result.content[0].text).toBe("echo: hi");
      expect(client.getInstructions()).toContain("echo (echo_say)");
    } finally {
      await client.close();
    }
  });
});
