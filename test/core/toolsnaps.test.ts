/**
 * Every tool's definition as clients see it (name, title, description, input and output schema,
 * annotations) is snapshotted in test/__toolsnaps__/, so a change to what a model reads is a
 * reviewed change. `UPDATE_TOOLSNAPS=1 bun test test/core/toolsnaps.test.ts` rewrites them.
 * The fs snapshot is seed 004's schema to the letter (docs/contracts/fs-search-by-time.md).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { coreOptions, parseCommandLine } from "../../src/cli/options.ts";
import { selectToolsets } from "../../src/cli/toolsets.ts";
import { createLogger } from "../../src/core/log.ts";
import { DEFAULT_OUTPUT_BUDGET } from "../../src/core/output-budget.ts";
import type { Toolset } from "../../src/core/tool.ts";
import { httpOptions } from "../../src/mcp/http/config.ts";
import { type ToolListing, dispatcherFor } from "../../src/mcp/protocol/dispatcher.ts";
import { toolsetModules } from "../../src/toolsets/index.ts";
import { REPO_ROOT, UI_EXTENSIONS } from "../support/mcp.ts";

type Tool = ToolListing;

const SNAPSHOTS = join(REPO_ROOT, "test/__toolsnaps__");
const update = process.env.UPDATE_TOOLSNAPS === "1";

let toolsets: readonly Toolset[] = [];
let tools: Tool[];
beforeAll(async () => {
  // In-process, through the protocol core that both eras and both transports answer tools/list with.
  // "/" as the root keeps the fs description (which names the allowed roots) the same on every machine.
  const specs = [...coreOptions, ...toolsetModules.flatMap((module) => module.options), ...httpOptions];
  const { values } = parseCommandLine(
    ["--toolsets", "all", "--oj-base-url", "http://127.0.0.1:9", "--root", "/"],
    {},
    specs,
  );
  const log = createLogger("off");
  toolsets = selectToolsets(toolsetModules, values, { log, mode: "stdio", cwd: "/" }).toolsets;
  const dispatcher = dispatcherFor({ toolsets, log, toolNames: "portable", outputBudget: DEFAULT_OUTPUT_BUDGET });
  const list = dispatcher.handlers.get("tools/list");
  if (!list) throw new Error("the dispatcher answers no tools/list");
  // A client that renders MCP Apps sees everything a tool's definition can hold (`_meta.ui` too).
  const listed = await list(
    {},
    {
      signal: new AbortController().signal,
      scopes: undefined,
      clientCapabilities: { extensions: UI_EXTENSIONS },
      notify: () => {},
      logLevel: () => undefined,
      clientRoots: async () => undefined,
    },
  );
  tools = listed.tools as Tool[];
  if (update) {
    rmSync(SNAPSHOTS, { recursive: true, force: true });
    mkdirSync(SNAPSHOTS, { recursive: true });
    for (const tool of tools) writeFileSync(join(SNAPSHOTS, `${tool.name}.snap`), render(tool));
  }
});
afterAll(async () => {
  for (const toolset of toolsets) await toolset.close?.();
});

function render(tool: Tool): string {
  const { name, title, description, inputSchema, outputSchema, annotations, _meta } = tool;
  return `${JSON.stringify({ name, title, description, inputSchema, outputSchema, annotations, _meta }, null, 2)}\n`;
}

describe("tool definitions match test/__toolsnaps__", () => {
  test("one snapshot per listed tool, and no snapshot of a tool that is gone", () => {
    const files = existsSync(SNAPSHOTS) ? readdirSync(SNAPSHOTS).filter((file) => file.endsWith(".snap")) : [];
    expect(files.sort()).toEqual(tools.map((tool) => `${tool.name}.snap`).sort());
  });

  test("each tool's definition is byte-identical to its snapshot (UPDATE_TOOLSNAPS=1 to accept a change)", () => {
    for (const tool of tools) {
      const file = join(SNAPSHOTS, `${tool.name}.snap`);
      expect(existsSync(file) ? readFileSync(file, "utf8") : `(no snapshot ${file})`).toBe(render(tool));
    }
  });
});
