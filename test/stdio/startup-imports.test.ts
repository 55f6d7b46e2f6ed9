/**
 * What a stdio start-up loads. The modules evaluated from `mcpkit` to the answer of `tools/list`
 * (main.ts, cli/run.ts, every toolset built, the stdio server) import none of the Node built-ins
 * that cost a start-up CPU time and that it has no use for (issue 39): node:crypto (~2 ms:
 * hashes and random bytes come from Bun.CryptoHasher and the global crypto), node:net (isIP is
 * loaded by the first HTTP address read), node:url (Bun.fileURLToPath), node:tty (asked only
 * when stdin is a character device) and node:util (0.3–0.5 ms: the command line is read by
 * cli/plain-args.ts, and parseArgs is required only for a form that one leaves to it). Read from the sources with TypeScript's parser: static value
 * imports and re-exports are followed; `import type`, `import()` and `require()` load on demand.
 * And what the tools do when called loads at the first call, not at start-up: the fs search's
 * code (the walks, the stat worker, the native walk) and boj's client, cache, decoders, rendering
 * and series search; checked on the real server from the sources, both eras.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { meta } from "../modern/support.ts";
import { REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { legacyOpening } from "./peer.ts";

const SRC = resolve(import.meta.dir, "../../src");
/** Evaluated at every stdio start-up: the entry, the command line, each toolset's tools (built at start), the server. */
const STARTUP_ROOTS = [
  "main.ts",
  "cli/run.ts",
  "toolsets/boj/toolset.ts",
  "toolsets/fs/toolset.ts",
  "toolsets/oj/toolset.ts",
  "mcp/stdio/serve.ts",
];
const UNWANTED = ["node:crypto", "node:net", "node:url", "node:tty", "node:util"];

/** The specifiers `file` imports for their values when it is evaluated. */
function staticImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** Each unwanted built-in reached from the roots, with the chain of modules that imports it. */
function unwantedImports(): string[] {
  const chains = new Map<string, string[]>(STARTUP_ROOTS.map((root) => [resolve(SRC, root), [root]]));
  const queue = [...chains.keys()];
  const reached: string[] = [];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const chain = chains.get(file) as string[];
    for (const specifier of staticImports(file)) {
      if (UNWANTED.includes(specifier) || UNWANTED.includes(`node:${specifier}`)) {
        reached.push(`${specifier} ← ${chain.join(" ← ")}`);
      } else if (specifier.startsWith(".") && /\.tsx?$/.test(specifier)) {
        const next = resolve(dirname(file), specifier);
        if (!chains.has(next)) {
          chains.set(next, [relative(SRC, next), ...chain]);
          queue.push(next);
        }
      }
    }
  }
  return reached;
}

test("a stdio start-up imports neither node:crypto, node:net, node:url, node:tty nor node:util", () => {
  expect(unwantedImports()).toEqual([]);
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-startup-imports-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (message: Record<string, unknown>) => `${JSON.stringify(message)}\n`;
const OPENINGS = {
  "2026-07-28": line({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }),
  "2025-11-25": `${legacyOpening()}${line({ jsonrpc: "2.0", id: 1, method: "tools/list" })}`,
};
/** Modules the tools' calls need: none is needed to list the tools. */
const CALLS_ONLY = [
  /toolsets\/fs\/(search|walk|stat-worker|stat-sink|native-walk|native-compile|collector|directories)\.ts$/,
  /toolsets\/boj\/(engine|client|answers|cache|validation|fit-page|render|decode\/\w+|search\/(index|run|series-catalog))\.ts$/,
  /toolsets\/boj\/tools\/(calls|data)\.ts$/,
];

for (const [era, opening] of Object.entries(OPENINGS)) {
  test(`${era}: a stdio server lists the boj and fs tools without loading what their calls need`, async () => {
    const out = join(dir, `loaded-${era}.json`);
    const probe = join(REPO_ROOT, "test/stdio/fixtures/loaded-modules-probe.ts");
    const result = await runProcess(
      [process.execPath, "--preload", probe, join(REPO_ROOT, "src/main.ts"), "--toolsets", "boj,fs", "--root", dir],
      { cwd: REPO_ROOT, env: testEnv({ LOADED_MODULES_OUT: out }), stdin: opening },
    );
    expect(result.code, result.stderr).toBe(0);
    const listed = result.stdout
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text))
      .find((answer) => answer.id === 1);
    const names = listed.result.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain("fs_search_by_time");
    expect(names).toContain("boj_search_series");
    const loaded = JSON.parse(readFileSync(out, "utf8")) as string[];
    for (const toolset of ["boj", "fs"]) {
      expect(loaded.some((path) => path.endsWith(`src/toolsets/${toolset}/toolset.ts`))).toBe(true);
    }
    expect(loaded.filter((path) => CALLS_ONLY.some((pattern) => pattern.test(path)))).toEqual([]);
  });
}
