/**
 * A tool call requires no module: code loaded at the first call (so that a server's start-up does
 * not pay for it) is kept with `lazy()` (src/core/lazy.ts), not fetched with a `require()` on every
 * call. In the compiled binary each such `require` looks the module up again: the boj handlers'
 * one cost about 5 µs of a catalogue call's ~60 µs of server time (server CPU per call, 60.5 → 55.0
 * µs, alternating rounds of the two binaries). Checked where calls run: the tools' files and the
 * fs search's per-call helpers.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const SRC = join(import.meta.dir, "../../src");

/** The files whose code runs on every tool call. */
function perCallFiles(): string[] {
  const toolsets = join(SRC, "toolsets");
  const files = (readdirSync(toolsets, { recursive: true }) as string[])
    .filter((name) => name.endsWith(".ts"))
    .filter((name) => /(^|\/)tools\//.test(name) || name.endsWith("-tool.ts"));
  return [...files, "fs/glob.ts"].map((name) => join(toolsets, name));
}

/** `require(` calls in TEXT that are not the body of a `lazy(() => …)`, as NAME:line. */
function requiresPerCall(name: string, source: string): string[] {
  // Comments blanked out, their lines kept, so the line numbers stay true.
  const text = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, (comment) => comment.replace(/[^\n]/g, " "));
  const found: string[] = [];
  for (const match of text.matchAll(/\brequire\(/g)) {
    const before = text.slice(0, match.index);
    const statement = before.slice(before.lastIndexOf(";") + 1);
    if (!/\blazy\(\s*\(\)\s*=>/.test(statement)) {
      found.push(`${name}:${before.split("\n").length}`);
    }
  }
  return found;
}

test("the check sees a require outside lazy(), and not one inside", () => {
  expect(requiresPerCall("x.ts", 'export function f() {\n  return require("./a.ts");\n}')).toEqual(["x.ts:2"]);
  expect(requiresPerCall("x.ts", 'const a = lazy(() => require("./a.ts") as A);\nconst b = 1;')).toEqual([]);
  expect(requiresPerCall("x.ts", '/**\n * require() reads it\n */\nconst b = 1; // or require("b")')).toEqual([]);
  expect(
    requiresPerCall(
      "x.ts",
      'const g = lazy(() => ({\n  a: require("a").x,\n  b: (\n    require("b")\n  ).default,\n}));',
    ),
  ).toEqual([]);
});

test("no tool's per-call code requires a module on each call", () => {
  const files = perCallFiles();
  expect(files.some((file) => file.endsWith("boj/tools/shared.ts"))).toBe(true);
  expect(files.some((file) => file.endsWith("fs/search-by-time-tool.ts"))).toBe(true);
  const found = files.flatMap((file) => requiresPerCall(relative(SRC, file), readFileSync(file, "utf8")));
  expect(found).toEqual([]);
});
