/**
 * A file name is bytes chosen by whoever wrote the file, and the text half of a result is what a
 * person or a model reads: a name must not be able to pass for another. Controls (a newline
 * forging a second line, escape sequences), bidi overrides (U+202E turns "txt.md" around) and the
 * line separators are shown escaped, in quotes; the structured half keeps the exact name.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/mcp.ts";

const NAMES = {
  plain: "plain.md",
  newline: "forged\nline.md",
  escape: "red\u001b[31m.md",
  c1: "c1\u009b31m.md",
  bidi: "invoice\u202etxt.md",
  lineSeparator: "two\u2028lines.md",
  zeroWidth: "zero\u200bwidth.md",
  // What a quoted form reads as: each must be quoted too, or it would pass for the name it spells.
  quotedNewline: '"forged\\nline.md"', // quote, backslash, n: not a newline
  backslash: "back\\slash.md",
  leadingQuote: '"quoted.md',
  innerQuote: 'inner"quote.md', // no quoted form starts like this: shown as it is
};

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-fs-names-"));
  for (const name of Object.values(NAMES)) writeFileSync(join(root, name), "x");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("names that could disguise a line are shown escaped in the text, exact in structuredContent", async () => {
  const result = await runCli(["call", "fs.search_by_time", '{"timeField":"modified"}', "--root", root]);
  expect(result.code).toBe(0);
  const output = JSON.parse(result.stdout) as {
    content: { text: string }[];
    structuredContent: { matches: { path: string }[] };
  };
  const text = output.content.map((part) => part.text).join("\n");
  const lines = text.split("\n");
  expect(lines.some((line) => line.startsWith("plain.md\t"))).toBe(true);
  expect(lines.some((line) => line.startsWith('"forged\\nline.md"\t'))).toBe(true);
  expect(lines.some((line) => line.startsWith('"red\\u001b[31m.md"\t'))).toBe(true);
  expect(lines.some((line) => line.startsWith('"c1\\u009b31m.md"\t'))).toBe(true);
  expect(lines.some((line) => line.startsWith('"invoice\\u202etxt.md"\t'))).toBe(true);
  expect(lines.some((line) => line.startsWith('"two\\u2028lines.md"\t'))).toBe(true);
  expect(lines.some((line) => line.startsWith('"zero\\u200bwidth.md"\t'))).toBe(true);
  for (const character of ["\u001b", "\u009b", "\u202e", "\u2028", "\u200b"]) expect(text).not.toContain(character);
  expect(output.structuredContent.matches.map((match) => match.path).sort()).toEqual(Object.values(NAMES).sort());
});

test("every name's text token reads back as exactly that name: quoted (JSON) when it starts with a quote or holds a backslash, as it is otherwise", async () => {
  const result = await runCli(["call", "fs.search_by_time", '{"timeField":"modified"}', "--root", root]);
  expect(result.code).toBe(0);
  const output = JSON.parse(result.stdout) as { content: { text: string }[] };
  const tokens = output.content[1].text
    .split("\n")
    .slice(1)
    .map((line) => line.slice(0, line.indexOf("\t")));
  // Before: '"forged\\nline.md"' (quote, backslash, n) showed exactly as the name holding a newline.
  expect(new Set(tokens).size).toBe(tokens.length);
  expect(tokens).toContain('"\\"forged\\\\nline.md\\""');
  expect(tokens).toContain('"forged\\nline.md"');
  expect(tokens).toContain('"back\\\\slash.md"');
  expect(tokens).toContain('"\\"quoted.md"');
  expect(tokens).toContain('inner"quote.md');
  expect(tokens).toContain("plain.md");
  const read = tokens.map((token) => (token.startsWith('"') ? (JSON.parse(token) as string) : token));
  expect(read.sort()).toEqual(Object.values(NAMES).sort());
});
