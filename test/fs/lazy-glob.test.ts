/**
 * fast-glob (with micromatch and node:stream) loads only for a search with a glob
 * (`src/toolsets/fs/glob.ts`): a server's start-up and a `mcpkit call` without a glob never pay
 * for it. A preloaded Bun plugin reports on stderr every resolution of a fast-glob module.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT, testEnv } from "../support/mcp.ts";

const MAIN = resolve(REPO_ROOT, "src/main.ts");
const MARKER = "loaded-fast-glob";
let dir: string;
let tree: string;
let preload: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mcpkit-lazy-glob-"));
  tree = join(dir, "tree");
  mkdirSync(tree);
  writeFileSync(join(tree, "a.md"), "");
  writeFileSync(join(tree, "b.txt"), "");
  preload = join(dir, "watch.ts");
  writeFileSync(
    preload,
    `import { plugin } from "bun";
plugin({
  name: "watch-fast-glob",
  setup(build) {
    build.onResolve({ filter: /^fast-glob/ }, () => {
      process.stderr.write("${MARKER}\\n");
      return undefined;
    });
  },
});
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function call(args: Record<string, unknown>): { stdout: string; stderr: string; code: number } {
  const result = Bun.spawnSync(
    [process.execPath, "--preload", preload, MAIN, "call", "fs.search_by_time", JSON.stringify(args), "--root", tree],
    { env: testEnv(), stdout: "pipe", stderr: "pipe" },
  );
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString(), code: result.exitCode };
}

test("a search without a glob does not load fast-glob", () => {
  const result = call({ timeField: "modified" });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout).structuredContent.matches).toHaveLength(2);
  expect(result.stderr).not.toContain(MARKER);
});

test("a search with a glob loads it and matches with it", () => {
  const result = call({ timeField: "modified", glob: "*.md" });
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout).structuredContent.matches.map((m: { path: string }) => m.path)).toEqual(["a.md"]);
  expect(result.stderr).toContain(MARKER);
});
