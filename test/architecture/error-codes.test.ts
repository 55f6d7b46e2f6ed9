/**
 * One table of JSON-RPC error codes: every code mcpkit answers with (JSON-RPC's own, the server
 * errors from -32000 on, the ones a tool throws) is written as a number once, in `ErrorCode`
 * (src/core/tool.ts), and used by name everywhere else; the codes 2026-07-28 reserves for itself
 * are the spec's own table, `MODERN_ERROR` (src/mcp/protocol/versions.ts). A second literal is how
 * -32000 came to mean three constants and -32001 three more.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import ts from "typescript";
import { fromSrc, sourceFiles } from "./source-graph.ts";

/** The files that may write an error code as a number. */
const TABLES = new Set(["core/tool.ts", "mcp/protocol/versions.ts"]);

/** Negative numeric literals in JSON-RPC's reserved range (-32768 to -32000) and -32800, as "file:line -N". */
function errorCodeLiterals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isPrefixUnaryExpression(node) &&
      node.operator === ts.SyntaxKind.MinusToken &&
      ts.isNumericLiteral(node.operand)
    ) {
      const value = Number(node.operand.text);
      if ((value >= 32000 && value <= 32768) || value === 32800) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        found.push(`${fromSrc(file)}:${line} -${value}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("JSON-RPC error codes", () => {
  test("are written as numbers only in the error tables", () => {
    const elsewhere = sourceFiles()
      .filter((file) => !TABLES.has(fromSrc(file)))
      .flatMap(errorCodeLiterals);
    expect(elsewhere).toEqual([]);
  });

  test("the check finds a literal code (so it can fail)", () => {
    const tables = sourceFiles().filter((file) => TABLES.has(fromSrc(file)));
    expect(tables.flatMap(errorCodeLiterals).some((found) => found.endsWith(" -32603"))).toBe(true);
  });
});
