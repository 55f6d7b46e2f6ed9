/**
 * Outside Windows "\" is a character a name may hold, not a separator: the tool reports a file in
 * the directory `a\b` as `a\b/wanted.txt`, and passing `a\b` back as 'path' must search that
 * directory, not `a/b`. A leading "\" is a name's first character there, not an absolute path.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../support/mcp.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "mcpkit-fs-backslash-"));
  mkdirSync(join(root, "a\\b"));
  mkdirSync(join(root, "a", "b"), { recursive: true });
  mkdirSync(join(root, "\\lead"));
  mkdirSync(join(root, "c:notes"));
  writeFileSync(join(root, "c:notes", "drive.txt"), "x");
  writeFileSync(join(root, "a\\b", "wanted.txt"), "x");
  writeFileSync(join(root, "a", "b", "other.txt"), "x");
  writeFileSync(join(root, "\\lead", "inside.txt"), "x");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function paths(args: Record<string, unknown>): Promise<string[] | string> {
  const result = await runCli(["call", "fs_search_by_time", JSON.stringify(args), "--root", root]);
  const output = JSON.parse(result.stdout) as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: { matches: { path: string }[] };
  };
  if (output.isError) return output.content[0].text;
  return (output.structuredContent?.matches ?? []).map((match) => match.path).sort();
}

test.skipIf(process.platform === "win32")("a 'path' holding a backslash names the directory of that name", async () => {
  const all = await paths({ timeField: "modified", sort: "path_asc" });
  expect(all).toContain("a\\b/wanted.txt");
  // The path the tool reported, passed back, searches that directory.
  expect(await paths({ timeField: "modified", path: "a\\b" })).toEqual(["a\\b/wanted.txt"]);
  expect(await paths({ timeField: "modified", path: "a/b" })).toEqual(["a/b/other.txt"]);
  expect(await paths({ timeField: "modified", path: "\\lead" })).toEqual(["\\lead/inside.txt"]);
  // Nor is a drive letter: `c:notes` is a directory's name outside Windows.
  expect(await paths({ timeField: "modified", path: "c:notes" })).toEqual(["c:notes/drive.txt"]);
});
