/**
 * `mcpkit call TOOL` builds only the toolset the tool's name starts with (`selectToolsets`'s
 * `forTool`), and a toolset's code loads only when it is built (each `index.ts` requires its
 * `toolset.ts` in `create`): a one-shot call of one toolset's tool never evaluates the others'.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as v from "valibot";
import { selectToolsets } from "../../src/cli/toolsets.ts";
import { silentLogger } from "../../src/core/log.ts";
import { defineTool, textResult, type Toolset } from "../../src/core/tool.ts";
import { defineToolsetModule, type Runtime } from "../../src/core/toolset-module.ts";
import { REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";

const runtime: Runtime = { log: silentLogger, mode: "call", cwd: "/" };

/** A toolset module named `name` with the tools `tools`, recording each build in `built`. */
function fakeModule(name: string, tools: string[], built: string[]) {
  return defineToolsetModule<object>({
    name,
    summary: name,
    options: [],
    configure: () => ({}),
    create(): Toolset {
      built.push(name);
      const defined = tools.map((tool) =>
        defineTool({
          name: tool,
          seedName: tool.replace("_", "."),
          title: tool,
          description: tool,
          input: v.object({}),
          annotations: { readOnlyHint: true },
          scope: `${name}:read`,
          handler: async () => textResult(tool),
        }),
      );
      return { name, tools: defined };
    },
  });
}

describe("selectToolsets for one tool", () => {
  const select = (forTool?: string) => {
    const built: string[] = [];
    const modules = [
      fakeModule("boj", ["boj_list"], built),
      fakeModule("oj", ["get_problem"], built),
      fakeModule("fs", ["fs_search"], built),
    ];
    const { toolsets } = selectToolsets(modules, {}, runtime, forTool);
    return { built, listed: toolsets.map((toolset) => toolset.name) };
  };

  test("builds only the toolset the name starts with, by its listed or its seed name", () => {
    expect(select("fs_search")).toEqual({ built: ["fs"], listed: ["fs"] });
    expect(select("fs.search")).toEqual({ built: ["fs"], listed: ["fs"] });
    expect(select("boj_list")).toEqual({ built: ["boj"], listed: ["boj"] });
  });

  test("builds them all, each once, for a name without a toolset's prefix, one its toolset lacks, or no tool", () => {
    const all = { built: ["boj", "oj", "fs"], listed: ["boj", "oj", "fs"] };
    expect(select("get_problem")).toEqual(all);
    expect(select("fs_nothing")).toEqual({ built: ["fs", "boj", "oj"], listed: ["boj", "oj", "fs"] });
    expect(select(undefined)).toEqual(all);
  });
});

describe("the real toolsets", () => {
  test("a call of fs_search_by_time loads fs's toolset code and none of boj's or oj's", async () => {
    const script = `
      const { selectToolsets } = await import(${JSON.stringify(join(REPO_ROOT, "src/cli/toolsets.ts"))});
      const { toolsetModules } = await import(${JSON.stringify(join(REPO_ROOT, "src/toolsets/index.ts"))});
      const { silentLogger } = await import(${JSON.stringify(join(REPO_ROOT, "src/core/log.ts"))});
      const runtime = { log: silentLogger, mode: "call", cwd: process.cwd() };
      const forTool = process.argv.at(-1) === "all" ? undefined : process.argv.at(-1);
      const { toolsets } = selectToolsets(toolsetModules, { "oj-base-url": "http://127.0.0.1:9" }, runtime, forTool);
      const loaded = Object.keys(require.cache).filter((path) => /toolsets\\/\\w+\\/(toolset\\.ts|tools\\/)/.test(path));
      const toolsets_ = [...new Set(loaded.map((path) => path.split("/toolsets/")[1].split("/")[0]))].sort();
      console.log(JSON.stringify({ built: toolsets.map((t) => t.name), loaded: toolsets_ }));
      for (const toolset of toolsets) await toolset.close?.();
    `;
    const run = async (forTool: string) => {
      const result = await runProcess([process.execPath, "-e", script, forTool], { env: testEnv(), cwd: REPO_ROOT });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout.trim().split("\n").at(-1) as string);
    };
    expect(await run("fs_search_by_time")).toEqual({ built: ["fs"], loaded: ["fs"] });
    expect(await run("boj_list_databases")).toEqual({ built: ["boj"], loaded: ["boj"] });
    // Every toolset, for a server or a name without a prefix: all of their code.
    expect(await run("all")).toEqual({ built: ["boj", "oj", "fs"], loaded: ["boj", "fs", "oj"] });
  });
});
