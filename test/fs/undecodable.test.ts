/**
 * Issue 18 G9 and the descriptor notice.
 * - Names that are not valid UTF-8: a directory named by raw bytes (\xff, \xfe) is never reopened
 *   by a lossy name (which used to open the real U+FFFD directory instead, listing it three times),
 *   no path is returned twice across pages, and what is left out is counted in the result.
 * - A search that runs out of file descriptors says so (too many open files, ulimit -n), instead
 *   of blaming permissions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningServer, mcpkitCommand, runCli, runProcess, startStdioServer, testEnv } from "../support/mcp.ts";

type Result = {
  content: { text: string }[];
  structuredContent: { matches: { path: string }[]; nextCursor: string | null };
};

describe("names that are not valid UTF-8 (G9)", () => {
  let root: string;
  let server: RunningServer;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "mcpkit-fs-undecodable-"));
    const raw = (...parts: (string | number[])[]) =>
      Buffer.concat([
        Buffer.from(`${root}/`),
        ...parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))),
      ]);
    mkdirSync(raw([0xff]));
    writeFileSync(raw([0xff], "/a.txt"), "a");
    mkdirSync(raw([0xfe]));
    writeFileSync(raw([0xfe], "/b.txt"), "b");
    mkdirSync(join(root, "\ufffd"));
    writeFileSync(join(root, "\ufffd", "c.txt"), "c");
    writeFileSync(raw([0x66, 0xfd], ".txt"), "f"); // "f\xfd.txt"
    for (let i = 0; i < 6; i++) writeFileSync(join(root, `ok-${i}.txt`), "ok");
    // A valid directory holding an undecodable one beside valid entries: only the latter is lost.
    mkdirSync(join(root, "nested", "deeper"), { recursive: true });
    writeFileSync(join(root, "nested", "keep.txt"), "k");
    writeFileSync(join(root, "nested", "deeper", "z.txt"), "z");
    mkdirSync(raw("nested/", [0xff]));
    writeFileSync(raw("nested/", [0xff], "/x.txt"), "x");
    server = await startStdioServer({ args: ["--toolsets", "fs", "--root", root] });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Every page of one search, `limit` matches at a time: the paths in order and each page's text. */
  async function allPages(limit: number, sort: string) {
    const paths: string[] = [];
    const texts: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 40; page++) {
      const result = (await server.client.callTool({
        name: "fs_search_by_time",
        arguments: { timeField: "modified", includeDirectories: true, limit, sort, cursor },
      })) as unknown as Result;
      paths.push(...result.structuredContent.matches.map((match) => match.path));
      texts.push(result.content[0].text);
      if (!result.structuredContent.nextCursor) return { paths, texts };
      cursor = result.structuredContent.nextCursor;
    }
    throw new Error("the search did not end within 40 pages");
  }

  // One page of 100 is where the lossy reopening showed (U+FFFD/c.txt three times in a page); pages
  // of 2 check that no cursor returns a path again.
  for (const [limit, sort] of [
    [2, "path_asc"],
    [100, "path_asc"],
    [100, "time_desc"],
  ] as const) {
    test(`limit ${limit}, ${sort}: each decodable path exactly once, none lost, and the text counts what was left out`, async () => {
      const { paths, texts } = await allPages(limit, sort);
      expect(new Set(paths).size).toBe(paths.length);
      expect(paths.filter((path) => path.startsWith("\ufffd"))).toEqual(
        sort === "path_asc" ? ["\ufffd", "\ufffd/c.txt"] : expect.arrayContaining(["\ufffd", "\ufffd/c.txt"]),
      );
      expect(paths.filter((path) => path.startsWith("ok-"))).toHaveLength(6);
      expect(paths.filter((path) => path.startsWith("nested")).sort()).toEqual([
        "nested",
        "nested/deeper",
        "nested/deeper/z.txt",
        "nested/keep.txt",
      ]);
      expect(paths).toHaveLength(12);
      // Three directories (with what is below them) and one file could not be named exactly.
      expect(texts[0]).toContain("4 entries were left out because their names are not valid UTF-8");
      expect(texts[0]).toContain("3 of them directories");
    });
  }
});

/** `mcpkit call` arguments that search the whole deep tree below `root`. */
const searchWholeTree = (root: string) => [
  "call",
  "fs_search_by_time",
  '{"timeField":"modified","limit":1000}',
  "--root",
  root,
  "--fs-max-depth",
  "200",
];

describe("out of file descriptors", () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "mcpkit-fs-emfile-"));
    // A directory stays open while any of its subdirectories waits to be walked: with ten siblings
    // beside the one that goes deeper, nearly every level keeps its directory open on the way down.
    let deep = root;
    for (let i = 0; i < 120; i++) {
      for (let leaf = 0; leaf < 10; leaf++) mkdirSync(join(deep, `l${leaf}`));
      deep = join(deep, `d${i}`);
      mkdirSync(deep);
      writeFileSync(join(deep, "f.txt"), "x");
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("a walk that runs out of descriptors names the cause and the fix, not permissions", async () => {
    // About a descriptor per level: 120 levels under a limit of 96 run out part-way.
    const command = [...mcpkitCommand(), ...searchWholeTree(root)]
      .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
      .join(" ");
    // The JavaScript walk (one thread, so the order directories are opened in, and the descriptors
    // held at once, are the same every run); the native walk's case is in native-walk.test.ts.
    const run = await runProcess(["sh", "-c", `ulimit -n 96 && exec ${command}`], {
      env: testEnv({ MCPKIT_FS_NATIVE_WALK: "off" }),
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as Result;
    expect(result.content[0].text).toContain("ran out of file descriptors (too many open files)");
    expect(result.content[0].text).toContain("ulimit -n");
    expect(result.content[0].text).not.toContain("unreadable");
    expect(run.stderr).toContain("EMFILE");
  });

  test("with descriptors to spare the same tree is searched whole", async () => {
    const run = await runCli(searchWholeTree(root));
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as Result).structuredContent.matches).toHaveLength(120);
  });
});
