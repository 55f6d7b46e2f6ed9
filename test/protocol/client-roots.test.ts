/**
 * localRootPaths, the one judge of a client's roots in both eras: a root that names no local
 * directory is skipped with a warning that says which and how to fix it, and a long list of bad
 * roots costs a few log lines, not one per root (a client chooses how many it sends).
 */
import { expect, test } from "bun:test";
import { createLogger } from "../../src/core/log.ts";
import { localRootPaths } from "../../src/mcp/protocol/dispatcher.ts";

function judged(roots: { uri?: unknown }[]) {
  const lines: string[] = [];
  const paths = localRootPaths(
    roots,
    "inputResponses.roots.roots",
    createLogger("warn", (line) => lines.push(line)),
  );
  return { paths, lines };
}

test("a bad root is named, with the reason and the fix; the good ones still apply", () => {
  const { paths, lines } = judged([{ uri: "file://evil/x" }, { uri: "file:///srv/data" }, { uri: 7 }]);
  expect(paths).toEqual(["/srv/data"]);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toContain('root="inputResponses.roots.roots[0]"');
  expect(lines[0]).toContain('uri="file://evil/x"');
  expect(lines[0]).toContain("file:///absolute/path");
  expect(lines[1]).toContain('root="inputResponses.roots.roots[2]"');
  expect(lines[1]).toContain('reason="\\"uri\\" is not a string"');
});

test("twelve bad roots: five named, the other seven counted in one line", () => {
  const bad = Array.from({ length: 12 }, (_, i) => ({ uri: `file://host-${i}/x` }));
  const { paths, lines } = judged([...bad, { uri: "file:///srv/data" }]);
  expect(paths).toEqual(["/srv/data"]);
  expect(lines).toHaveLength(6);
  expect(lines.slice(0, 5).every((line) => line.includes("ignoring a client root"))).toBe(true);
  expect(lines[4]).toContain("roots[4]");
  expect(lines[5]).toContain("ignoring 7 more client roots of inputResponses.roots.roots");
});
