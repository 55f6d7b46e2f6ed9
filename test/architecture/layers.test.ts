/**
 * The layer order of src/, checked from the imports themselves (type imports and `import()` too):
 *
 *   core  <-  protocol  <-  legacy | modern  <-  stdio | http
 *   core  <-  web  <-  auth-server  <-  http
 *
 * toolsets import only core; cli and main sit on top. No folder imports upward or sideways, no
 * file sits loose at the root of src/mcp, src/mcp has no import cycle, no toolset imports another
 * (a toolset is one folder), cli reaches the toolsets only through their registry, core's code
 * names no toolset (a toolset's metric or flag is declared in its folder, not in core's), and no
 * function in src is longer than 80 lines.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fromSrc, importsOf, longFunctions, SRC, sourceFiles, toolsetMentions, toolsetNames } from "./source-graph.ts";

/** Each room and the rooms it may import (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  "package.json": [],
  version: ["package.json"],
  core: ["version"],
  "mcp/protocol": ["core", "version"],
  "mcp/legacy": ["mcp/protocol", "core", "version"],
  "mcp/modern": ["mcp/protocol", "core", "version"],
  "mcp/web": ["core"],
  "mcp/auth-server": ["mcp/web", "core", "version"],
  "mcp/stdio": ["mcp/legacy", "mcp/modern", "mcp/protocol", "core", "version"],
  "mcp/http": ["mcp/legacy", "mcp/modern", "mcp/protocol", "mcp/auth-server", "mcp/web", "core", "version"],
  toolsets: ["core", "version", "package.json"],
  cli: ["mcp/stdio", "mcp/http", "mcp/protocol", "toolsets", "core", "version"],
  main: ["cli", "toolsets", "core", "version"],
};

/** The room of a path relative to src/ ("mcp/http", "core", …); "../package.json" is its own. */
export function roomOf(path: string): string {
  if (path === "../package.json") return "package.json";
  const inMcp = path.match(/^mcp\/([^/]+)\//);
  if (inMcp) return `mcp/${inMcp[1]}`;
  if (path.startsWith("mcp/")) return "mcp (loose file)";
  return (path.split("/")[0] ?? path).replace(/\.tsx?$/, "");
}

const files = sourceFiles();
const edges = files.flatMap((file) => importsOf(file).map((target) => ({ from: fromSrc(file), to: fromSrc(target) })));

describe("the layers of src/", () => {
  test("every import goes to a room the layer table allows", () => {
    const upward = edges
      .filter(({ from, to }) => {
        const [a, b] = [roomOf(from), roomOf(to)];
        return a !== b && !(MAY_IMPORT[a] ?? []).includes(b);
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(upward).toEqual([]);
  });

  test("every file of src/ is in a room the table knows", () => {
    const unknown = files.map(fromSrc).filter((path) => !(roomOf(path) in MAY_IMPORT));
    expect(unknown).toEqual([]);
  });

  test("no file sits loose at the root of src/mcp", () => {
    expect(files.map(fromSrc).filter((path) => /^mcp\/[^/]+$/.test(path))).toEqual([]);
  });

  test("no toolset imports another toolset's folder (toolsets/index.ts, the registry, lists them all)", () => {
    const toolsetOf = (path: string) => path.match(/^toolsets\/([^/]+)\//)?.[1];
    const across = edges
      .filter(({ from, to }) => {
        const [a, b] = [toolsetOf(from), toolsetOf(to)];
        return a !== undefined && b !== undefined && a !== b;
      })
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(across).toEqual([]);
  });

  test("cli reaches the toolsets only through the registry, toolsets/index.ts (their options and tools come from there)", () => {
    const past = edges
      .filter(({ from, to }) => roomOf(from) === "cli" && roomOf(to) === "toolsets" && to !== "toolsets/index.ts")
      .map(({ from, to }) => `${from} -> ${to}`);
    expect(past).toEqual([]);
  });

  test("core's code names no toolset: no metric, flag, variable, tool or type of one (comments may give examples)", () => {
    const toolsets = toolsetNames();
    expect(toolsets.length).toBeGreaterThan(0);
    const named = sourceFiles(join(SRC, "core")).flatMap((file) =>
      toolsetMentions(readFileSync(file, "utf8"), toolsets, fromSrc(file)),
    );
    expect(named).toEqual([]);
  });

  test("src/mcp has no import cycle", () => {
    expect(cyclesAmong(edges.filter(({ from, to }) => from.startsWith("mcp/") && to.startsWith("mcp/")))).toEqual([]);
  });

  test("no function in src is over 80 lines", () => {
    const long = files.flatMap((file) => longFunctions(file, 80));
    expect(long).toEqual([]);
  });
});

describe("the checker itself", () => {
  test("an upward import, a loose file and a cycle are each found", () => {
    expect(roomOf("mcp/stdio.ts")).toBe("mcp (loose file)");
    expect(MAY_IMPORT["mcp/legacy"]).not.toContain("mcp/modern");
    const cycle = cyclesAmong([
      { from: "mcp/http/a.ts", to: "mcp/http/b.ts" },
      { from: "mcp/http/b.ts", to: "mcp/http/c.ts" },
      { from: "mcp/http/c.ts", to: "mcp/http/a.ts" },
      { from: "mcp/http/c.ts", to: "mcp/http/d.ts" },
    ]);
    expect(cycle).toEqual(["mcp/http/a.ts -> mcp/http/b.ts -> mcp/http/c.ts -> mcp/http/a.ts"]);
  });

  test("a toolset's name in core's code is found; a comment, a node: import and an upstream in prose are not", () => {
    const named = toolsetMentions(
      [
        'import fs from "node:fs";',
        "// mcpkit.boj.cache.lookups counts BOJ's cache (a comment)",
        'export type CounterName = "mcpkit.boj.cache.lookups" | "mcpkit.calls.refused";',
        // A template with a placeholder, written in two pieces so that the linter sees no placeholder in a string.
        "const flag = `--oj-token $" + "{fs.sep}`;",
        'const variable = process.env["OJ_TOKEN"];',
        "let bojCache: unknown;",
        'const about = "Duration of HTTP requests to upstreams (BOJ, craboj, the identity provider).";',
      ].join("\n"),
      ["boj", "fs", "oj"],
    );
    expect(named).toEqual([
      'source.ts:3 "mcpkit.boj.cache.lookups"',
      "source.ts:4 `--oj-token ${",
      'source.ts:5 "OJ_TOKEN"',
      "source.ts:6 bojCache",
    ]);
  });
});

/** Each strongly connected group of files (Tarjan), as one path around it. */
function cyclesAmong(list: { from: string; to: string }[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of list) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || (next.get(node) ?? []).includes(node)) groups.push(group);
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
  return groups.map((group) => pathAround(group.sort(), next));
}

/** A walk from the group's first file back to itself through the group. */
function pathAround(group: string[], next: Map<string, string[]>): string {
  const members = new Set(group);
  const start = group[0] as string;
  const seen = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    for (const to of next.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at && at !== start; at = seen.get(at)) path.splice(1, 0, at);
        return [...path, start].join(" -> ");
      }
      if (!seen.has(to)) {
        seen.set(to, node);
        queue.push(to);
      }
    }
  }
  return group.join(", ");
}
