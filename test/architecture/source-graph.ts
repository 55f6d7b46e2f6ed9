/**
 * Reads every import of `src/` (type imports, re-exports and `import()` included) with TypeScript's
 * own pre-processor, and measures every function's length, for the layering test.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const SRC = resolve(import.meta.dir, "../../src");

export function sourceFiles(dir = SRC): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) files.push(path);
  }
  return files.sort();
}

/** Each relative import of `file` resolved to a path under src/ (bare package imports are left out). */
export function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => resolve(dirname(file), name));
}

export const fromSrc = (path: string) => relative(SRC, path);

/** Functions longer than `limit` lines, as "file:line name (N lines)". */
export function longFunctions(file: string, limit: number): string[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      if (lines > limit) found.push(`${fromSrc(file)}:${first + 1} ${functionName(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return "(anonymous)";
}
