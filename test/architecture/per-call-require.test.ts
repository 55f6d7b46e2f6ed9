/**
 * No request loads a module: code loaded on first use (so that a server's start-up does not pay
 * for it) is kept with a module-level `lazy()` (src/core/lazy.ts), not fetched with `require()` or
 * `import()` each time. In the compiled binary each `require` looks the module up again: the boj
 * handlers' one cost about 5 µs of a catalogue call's ~60 µs of server time (server CPU per call,
 * 60.5 → 55.0 µs, alternating rounds of the two binaries).
 *
 * Every `require(…)` and `import(…)` call in src/core, src/mcp and src/toolsets (parsed with
 * TypeScript, comments and strings aside) must be in module-level code, in the function of a
 * module-level `lazy(…)`, or inside a function listed below as running once, with the reason.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const SRC = join(import.meta.dir, "../../src");
const SCANNED = ["core", "mcp", "toolsets"];

/** file:function → why that function runs once (a process, a server, or its result is kept). */
const RUNS_ONCE: Record<string, string> = {
  "core/json-schema.ts:convertToJsonSchema": "converts each schema once; jsonSchemaOf keeps the result",
  "core/telemetry/exporters.ts:spanProcessors": "at start-up, when telemetry is on",
  "core/telemetry/exporters.ts:metricReaders": "at start-up, when telemetry is on",
  "core/telemetry/index.ts:startTelemetry": "at start-up, when telemetry is on",
  "mcp/http/serve.ts:startAuthorizationServer": "at start-up, with --auth oauth",
  "toolsets/fs/libc.ts:libc": "once a process: the result is kept in `loaded`",
  "toolsets/fs/jit.ts:stayBelowFtl": "once a process: `noFtl` is kept",
  "toolsets/fs/index.ts:create": "once a server, when the toolset is made",
  "toolsets/fs/toolset.ts:createFs": "once a server (the stat worker's lazy() is made there)",
  "toolsets/fs/private-directory.ts:onlyOursToRename": "once a process, before compiling the native walk",
  "toolsets/fs/private-directory.ts:makePrivateDirectory": "once a process, before compiling the native walk",
  "toolsets/fs/native-compile.ts:compileNativeWalk": "once a process: native-walk.ts keeps the compiled walk",
  "toolsets/fs/native-compile.ts:loadPrebuiltNativeWalk": "once a process: native-walk.ts keeps the loaded walk",
  "toolsets/fs/native-compile.ts:linkNativeWalk": "once a process: native-walk.ts keeps the linked walk",
  "toolsets/fs/native-thread.ts:privateDirectoryUntilExit": "at exit, removing the compile folder",
  "toolsets/boj/index.ts:create": "once a server, when the toolset is made",
  "toolsets/boj/toolset.ts:createBoj": "once a server (the engine's lazy() is made there)",
  "toolsets/boj/search/index.ts:openCatalogStore": "once a server: the store is kept",
  "toolsets/boj/shared-link.ts:linkSharedState": "once a server: `opened` keeps the promise",
  "toolsets/oj/index.ts:create": "once a server, when the toolset is made",
};

/** The name a function goes by: its own, its variable's, its property's, or its method's. */
function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return "(anonymous)";
}

const isLazyCall = (node: ts.Node): boolean =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "lazy";

/** Where each module load in SOURCE sits that is neither module-level nor a module-level lazy(): `name:function:line`. */
function loadsInFunctions(name: string, source: string): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const isLoad =
      ts.isCallExpression(node) &&
      ((ts.isIdentifier(node.expression) && node.expression.text === "require") ||
        node.expression.kind === ts.SyntaxKind.ImportKeyword);
    if (isLoad) {
      // The outermost function around the load, and whether that function is a module-level lazy()'s.
      let outermost: ts.Node | undefined;
      for (let up = node.parent; up && !ts.isSourceFile(up); up = up.parent) {
        if (ts.isFunctionLike(up)) outermost = up;
      }
      const inLazy = outermost?.parent !== undefined && isLazyCall(outermost.parent);
      if (outermost && !inLazy) {
        const line = file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${name}:${nameOf(outermost)}:${line}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

test("the check finds a load inside a function, and passes module-level code and a module-level lazy()", () => {
  expect(loadsInFunctions("x.ts", 'export function f() {\n  return require("./a.ts");\n}')).toEqual(["x.ts:f:2"]);
  expect(loadsInFunctions("x.ts", "const g = async () => (await import('./a.ts')).x;")).toEqual(["x.ts:g:1"]);
  expect(loadsInFunctions("x.ts", 'const a = lazy(() => require("./a.ts") as A);\nconst b = require("b");')).toEqual(
    [],
  );
  expect(
    loadsInFunctions(
      "x.ts",
      'const g = lazy(() => {\n  const a = 1;\n  return { a: require("a").x, b: import("b") };\n});',
    ),
  ).toEqual([]);
  // A lazy() made inside a function is made again on every call of that function.
  expect(loadsInFunctions("x.ts", 'export function h() {\n  return lazy(() => require("a")).get();\n}')).toEqual([
    "x.ts:h:2",
  ]);
  // Comments and strings are not calls.
  expect(loadsInFunctions("x.ts", 'function k() {\n  // require("a")\n  return "require(b)";\n}')).toEqual([]);
});

test("no module is loaded per request: only by module-level code, a module-level lazy(), or a function that runs once", () => {
  const files = SCANNED.flatMap((folder) =>
    (readdirSync(join(SRC, folder), { recursive: true }) as string[])
      .filter((name) => name.endsWith(".ts"))
      .map((name) => join(SRC, folder, name)),
  );
  const found = files.flatMap((file) => loadsInFunctions(relative(SRC, file), readFileSync(file, "utf8")));
  const unexplained = found.filter((where) => !(where.replace(/:\d+$/, "") in RUNS_ONCE));
  expect(unexplained).toEqual([]);
  // Every entry of the list still names a function that loads something, so it cannot outlive its reason.
  const listed = new Set(found.map((where) => where.replace(/:\d+$/, "")));
  expect(Object.keys(RUNS_ONCE).filter((entry) => !listed.has(entry))).toEqual([]);
});
