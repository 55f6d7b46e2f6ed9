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

/** The toolsets of src/toolsets, by folder name. */
export function toolsetNames(): string[] {
  return readdirSync(join(SRC, "toolsets"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The names of a toolset in `text`'s code, comments left out: a string that holds one as a
 * lowercase piece (`mcpkit.boj.cache.lookups`, `--oj-token`, `boj_get_data_code`, `fs:read`) or as
 * a variable's prefix (`OJ_TOKEN`), and an identifier with one as a word (`bojCache`, `OjConfig`).
 * Module specifiers and the local names of package imports (`fs` from "node:fs") are not mentions,
 * nor is an upstream named in prose ("BOJ, craboj").
 */
export function toolsetMentions(text: string, toolsets: readonly string[], file = "source.ts"): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const packageNames = new Set<string>();
  const found: string[] = [];
  const names = new Set(toolsets);
  const inString = (value: string) =>
    value.split(/[^a-z0-9]+/).some((piece) => names.has(piece)) ||
    toolsets.some((name) => new RegExp(`(^|[^A-Za-z0-9])${name.toUpperCase()}_`).test(value));
  const inIdentifier = (value: string) =>
    value.split(/_+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/).some((piece) => names.has(piece.toLowerCase()));
  const isSpecifier = (node: ts.Node) =>
    (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent)) &&
    node.parent.moduleSpecifier === node;
  const isDynamicSpecifier = (node: ts.Node) =>
    ts.isCallExpression(node.parent) &&
    (node.parent.expression.kind === ts.SyntaxKind.ImportKeyword || node.parent.expression.getText() === "require");
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (statement.moduleSpecifier.text.startsWith(".")) continue;
    const clause = statement.importClause;
    if (clause?.name) packageNames.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) packageNames.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) packageNames.add(element.name.text);
  }
  const visit = (node: ts.Node) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      if (!isSpecifier(node) && !isDynamicSpecifier(node) && inString(node.text))
        found.push(`${file}:${line} ${node.getText(source)}`);
    } else if (ts.isIdentifier(node) && !packageNames.has(node.text) && inIdentifier(node.text)) {
      found.push(`${file}:${line} ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
