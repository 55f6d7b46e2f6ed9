/**
 * Paging properties of fs_search_by_time over randomly generated trees (fast-check), through one
 * real server process: an unchanged tree pages through every match exactly once and in order; a
 * tree that changes between pages never yields an entry twice.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { type RunningServer, startStdioServer } from "../support/mcp.ts";

let base: string;
let server: RunningServer;
let runs = 0;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-fs-paging-"));
  server = await startStdioServer({ args: ["--toolsets", "fs", "--root", base] });
});
afterAll(async () => {
  await server?.close();
  rmSync(base, { recursive: true, force: true });
});

// Few distinct times, so ties (broken by path) are common.
const TIMES = [Date.UTC(2025, 0, 1), Date.UTC(2025, 5, 1), Date.UTC(2025, 5, 1, 0, 0, 1), Date.UTC(2025, 11, 31)];
const DIRS = ["a", "a/b", "c"];

const fileArb = fc.record({
  dir: fc.constantFrom("", ...DIRS),
  name: fc.constantFrom("f0", "f1", "f2", "F3", "g", "z9"),
  ext: fc.constantFrom(".md", ".txt"),
  time: fc.nat(TIMES.length - 1),
});
const queryArb = fc.record({
  sort: fc.constantFrom("time_desc", "time_asc", "path_asc"),
  limit: fc.integer({ min: 1, max: 5 }),
  includeDirectories: fc.boolean(),
  glob: fc.constantFrom(undefined, "**/*.md", "*", "a/**"),
  from: fc.constantFrom(undefined, TIMES[1]),
});

interface Entry {
  path: string;
  time: number;
  isDirectory: boolean;
}

/** Builds a tree under a fresh directory; returns its name and every entry (paths relative to it). */
type FileSpec = typeof fileArb extends fc.Arbitrary<infer T> ? T : never;
type QuerySpec = typeof queryArb extends fc.Arbitrary<infer T> ? T : never;

function buildTree(files: FileSpec[]): { name: string; entries: Entry[] } {
  const name = `run${++runs}`;
  const dir = join(base, name);
  const entries = new Map<string, Entry>();
  for (const sub of DIRS) mkdirSync(join(dir, sub), { recursive: true });
  for (const file of files) {
    const path = (file.dir ? `${file.dir}/` : "") + file.name + file.ext;
    writeFileSync(join(dir, path), path);
    utimesSync(join(dir, path), new Date(TIMES[file.time]), new Date(TIMES[file.time]));
    entries.set(path, { path, time: TIMES[file.time], isDirectory: false });
  }
  DIRS.forEach((sub, index) => {
    const time = TIMES[index % TIMES.length];
    utimesSync(join(dir, sub), new Date(time), new Date(time));
    entries.set(sub, { path: sub, time, isDirectory: true });
  });
  return { name, entries: [...entries.values()] };
}

/** What the pages should add up to, computed independently of the server's code. */
function expected(entries: Entry[], query: QuerySpec): string[] {
  const globs: Record<string, (path: string, isDirectory: boolean) => boolean> = {
    "**/*.md": (path) => path.endsWith(".md"),
    "*": (path) => !path.includes("/"),
    "a/**": (path) => path.startsWith("a/"),
  };
  const kept = entries.filter(
    (e) =>
      (e.isDirectory ? query.includeDirectories : true) &&
      (query.glob === undefined || globs[query.glob](e.path, e.isDirectory)) &&
      (query.from === undefined || e.time >= query.from),
  );
  const byPath = (a: Entry, b: Entry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  kept.sort((a, b) => {
    if (query.sort === "path_asc") return byPath(a, b);
    const byTime = query.sort === "time_desc" ? b.time - a.time : a.time - b.time;
    return byTime !== 0 ? byTime : byPath(a, b);
  });
  return kept.map((e) => e.path);
}

async function page(name: string, query: Record<string, unknown>, cursor?: string) {
  const args: Record<string, unknown> = { timeField: "modified", path: name, ...query };
  if (args.from !== undefined) args.from = new Date(args.from as number).toISOString();
  for (const key of Object.keys(args)) if (args[key] === undefined) delete args[key];
  if (cursor) args.cursor = cursor;
  const result = (await server.client.callTool({ name: "fs_search_by_time", arguments: args })) as unknown as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent: { matches: { path: string }[]; nextCursor: string | null; stats: { returned: number } };
  };
  if (result.isError) throw new Error(result.content[0].text);
  const prefix = `${name}/`;
  return {
    paths: result.structuredContent.matches.map((m) =>
      m.path.startsWith(prefix) ? m.path.slice(prefix.length) : `!${m.path}`,
    ),
    next: result.structuredContent.nextCursor,
    returned: result.structuredContent.stats.returned,
  };
}

test("an unchanged tree: the pages hold every match exactly once, in order, and only the last has nextCursor null", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fileArb, { maxLength: 25 }), queryArb, async (files, query) => {
      const tree = buildTree(files);
      const want = expected(tree.entries, query);
      const got: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const { paths, next, returned } = await page(tree.name, query, cursor);
        expect(returned).toBe(paths.length);
        expect(paths.length).toBeLessThanOrEqual(query.limit);
        if (next !== null) expect(paths.length).toBe(query.limit);
        got.push(...paths);
        if (next === null) break;
        cursor = next;
      }
      expect(got).toEqual(want);
    }),
    { numRuns: 30 },
  );
});

test("a tree changed between pages never yields an entry twice", async () => {
  const mutationArb = fc.array(
    fc.record({
      kind: fc.constantFrom("add", "touch", "delete", "rename"),
      file: fileArb,
      pick: fc.nat(),
      time: fc.nat(TIMES.length - 1),
    }),
    { minLength: 1, maxLength: 8 },
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(fileArb, { minLength: 4, maxLength: 25 }),
      queryArb,
      mutationArb,
      async (files, query, mutations) => {
        const tree = buildTree(files);
        const dir = join(base, tree.name);
        const first = await page(tree.name, { ...query, limit: Math.min(query.limit, 3) });
        const seen = [...first.paths];
        let cursor = first.next;
        // Mutate after the first page: new files, mtimes moved back and forth, deletions, renames.
        const existing = tree.entries.filter((e) => !e.isDirectory).map((e) => e.path);
        for (const mutation of mutations) {
          const target = existing.length > 0 ? existing[mutation.pick % existing.length] : undefined;
          const when = new Date(TIMES[mutation.time]);
          try {
            if (mutation.kind === "add") {
              const path = `${mutation.file.dir ? `${mutation.file.dir}/` : ""}new-${mutation.file.name}${mutation.file.ext}`;
              writeFileSync(join(dir, path), "new");
              utimesSync(join(dir, path), when, when);
            } else if (target && mutation.kind === "touch") utimesSync(join(dir, target), when, when);
            else if (target && mutation.kind === "delete") rmSync(join(dir, target), { force: true });
            else if (target && mutation.kind === "rename")
              renameSync(join(dir, target), join(dir, `${target}.moved.md`));
          } catch {
            // the target may already be gone; that is a valid change too
          }
        }
        for (let pages = 0; cursor !== null && pages < 100; pages++) {
          const next = await page(tree.name, { ...query, limit: Math.min(query.limit, 3) }, cursor);
          seen.push(...next.paths);
          cursor = next.next;
        }
        expect(new Set(seen).size).toBe(seen.length);
      },
    ),
    { numRuns: 25 },
  );
});
