/**
 * What a stdio start-up loads: the modules evaluated from `mcpkit` to the answer of `tools/list`
 * (main.ts, cli/run.ts, every toolset built, the stdio server) import none of the Node built-ins
 * that cost a start-up CPU time and that it has no use for (issue 39): node:crypto (~2 ms:
 * hashes and random bytes come from Bun.CryptoHasher and the global crypto), node:net (isIP is
 * loaded by the first HTTP address read), node:url (Bun.fileURLToPath) and node:tty (asked only
 * when stdin is a character device). Read from the sources with TypeScript's parser: static value
 * imports and re-exports are followed; `import type`, `import()` and `require()` load on demand.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import ts from "typescript";

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
const UNWANTED = ["node:crypto", "node:net", "node:url", "node:tty"];

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

test("a stdio start-up imports neither node:crypto, node:net, node:url nor node:tty", () => {
  expect(unwantedImports()).toEqual([]);
});
