/**
 * Directories that can be listed but not searched (read permission without execute: getdents64
 * lists their names, but statx on each entry fails with EACCES). Their entries used to vanish
 * from results without a word, as if removed since the listing; they are counted now, in the
 * text, in structuredContent's stats and in one log message, and every walk counts them alike:
 * the JavaScript walk (statx on its own thread or on the stat thread, with or without a glob) and
 * the native walk. An entry that is really gone (ENOENT) is still left out silently.
 *
 * Root searches such a directory all the same, so as root the searches run as nobody (setpriv).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCollector } from "../../src/toolsets/fs/collector.ts";
import { directoryAccess } from "../../src/toolsets/fs/directories.ts";
import { entryStat } from "../../src/toolsets/fs/entry-stat.ts";
import { libc } from "../../src/toolsets/fs/libc.ts";
import { walk } from "../../src/toolsets/fs/walk.ts";
import { mcpkitCommand, REPO_ROOT, runProcess, testEnv } from "../support/mcp.ts";
import { collectorConfig, walkRequest } from "./support.ts";

const asRoot = process.getuid?.() === 0;
const setpriv = Bun.which("setpriv");
/** How a command runs as a user the permissions apply to. */
const unprivileged = asRoot ? [setpriv as string, "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
const hasNativeWalk = process.platform === "linux" && libc() !== undefined;
/** More than one batch (512) and one parcel (1,024 entries): a directory counted once across them. */
const MANY = 1_100;

let tree: string;

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), "mcpkit-fs-unsearchable-"));
  chmodSync(tree, 0o755);
  mkdirSync(join(tree, "open", "half"), { recursive: true });
  writeFileSync(join(tree, "open", "seen.md"), "x");
  writeFileSync(join(tree, "open", "half", "c.md"), "x");
  mkdirSync(join(tree, "shut", "sub"), { recursive: true });
  writeFileSync(join(tree, "shut", "a.md"), "x");
  writeFileSync(join(tree, "shut", "b.txt"), "x");
  writeFileSync(join(tree, "shut", "sub", "inner.md"), "x");
  for (let i = 0; i < MANY; i++) writeFileSync(join(tree, "shut", `n${i}.txt`), "");
  // Readable, not searchable: r-- for everyone.
  chmodSync(join(tree, "shut"), 0o644);
  chmodSync(join(tree, "open", "half"), 0o444);
}, 30_000);

afterAll(() => {
  chmodSync(join(tree, "shut"), 0o755);
  chmodSync(join(tree, "open", "half"), 0o755);
  rmSync(tree, { recursive: true, force: true });
});

interface Answer {
  content: { text: string }[];
  structuredContent: { matches: { path: string }[]; stats: Record<string, number> };
}

/** `mcpkit call fs_search_by_time` as an unprivileged user, with the debug log (which walk ran). */
async function search(
  args: Record<string, unknown>,
  nativeWalk: "0" | "off",
): Promise<{ answer: Answer; stderr: string }> {
  const child = await runProcess(
    [
      ...unprivileged,
      ...mcpkitCommand(),
      "call",
      "fs_search_by_time",
      JSON.stringify({ timeField: "modified", limit: 1000, ...args }),
      "--root",
      tree,
      "--fs-native-walk",
      nativeWalk,
      "--log-level",
      "debug",
    ],
    { cwd: REPO_ROOT, env: testEnv() },
  );
  expect(child.code, child.stderr).toBe(0);
  return { answer: JSON.parse(child.stdout), stderr: child.stderr };
}

/** The notice for `directories` and `entries` when more than one of each. */
const notice = (directories: number, entries: number) =>
  `${directories} directories could be listed but not searched: they lack search (execute, x) permission for the user the server runs as (or a security policy refused it), so the times of ${entries} entries in them could not be read and they were left out. Grant that permission (chmod +x on those directories), or narrow 'path' to avoid them.`;

/** shut/ holds a.md, b.txt and the MANY; open/half/ holds c.md. */
const FILES_LEFT_OUT = 2 + MANY + 1;

describe.skipIf(asRoot && !setpriv)("directories that can be listed but not searched", () => {
  test("the JavaScript walk counts them and their entries: text, structuredContent and one log message", async () => {
    const { answer, stderr } = await search({}, "off");
    expect(stderr).toContain('walker="javascript"');
    expect(answer.content[0].text).toContain(notice(2, FILES_LEFT_OUT));
    // shut/sub cannot be opened (its parent is not searchable): an unreadable directory, as before.
    expect(answer.content[0].text).toContain("1 unreadable directory was skipped.");
    expect(answer.structuredContent.stats).toMatchObject({
      unsearchableDirectories: 2,
      unsearchableEntries: FILES_LEFT_OUT,
    });
    expect(answer.structuredContent.matches.map((match) => match.path)).toEqual(["open/seen.md"]);
    expect(
      stderr.match(
        new RegExp(
          `left out ${FILES_LEFT_OUT} entries of 2 directories that could be listed but not searched \\(no search/execute permission`,
          "g",
        ),
      ),
    ).toHaveLength(1);
  });

  test("with a glob, what the glob would have matched", async () => {
    const { answer } = await search({ glob: "**/*.md" }, "off");
    // a.md and c.md; not b.txt nor the MANY.
    expect(answer.content[0].text).toContain(notice(2, 2));
    expect(answer.structuredContent.stats).toMatchObject({ unsearchableDirectories: 2, unsearchableEntries: 2 });
    expect(answer.structuredContent.matches.map((match) => match.path)).toEqual(["open/seen.md"]);
  });

  test.skipIf(!hasNativeWalk)("the native walk counts exactly what the JavaScript walk counts", async () => {
    for (const args of [{}, { includeDirectories: true }]) {
      const native = await search(args, "0");
      expect(native.stderr).toContain('walker="javascript+native"');
      const javascript = await search(args, "off");
      expect(native.answer.structuredContent.stats).toEqual(javascript.answer.structuredContent.stats);
      expect(native.answer.content[0].text.replace(/Server time: .*/, "")).toBe(
        javascript.answer.content[0].text.replace(/Server time: .*/, ""),
      );
    }
    // With directories, shut/sub is one of shut's entries too (and still unreadable itself).
    const { answer } = await search({ includeDirectories: true }, "0");
    expect(answer.content[0].text).toContain(notice(2, FILES_LEFT_OUT + 1));
    expect(answer.content[0].text).toContain("1 unreadable directory was skipped.");
  });

  test("the stat thread counts them too, each directory once across its batches and threads", async () => {
    const module = (name: string) => JSON.stringify(join(REPO_ROOT, `src/toolsets/fs/${name}.ts`));
    const script = `
      const { directoryAccess } = await import(${module("directories")});
      const { openStatSink } = await import(${module("stat-sink")});
      const { prestartStatThread } = await import(${module("stat-thread")});
      const { StatWorker } = await import(${module("stat-worker")});
      const { walk } = await import(${module("walk")});
      prestartStatThread();
      const worker = new StatWorker();
      if (!(await worker.whenReady())) throw new Error("no stat thread");
      const config = { timeField: "modified", from: null, to: null, includeUnknownTime: false, sort: "time_desc", limit: 10, resume: null };
      const sink = openStatSink(config, "", worker);
      await walk({ root: ${JSON.stringify(tree)}, start: "", access: directoryAccess(), maxDepth: 64,
        maxDepthIsServerLimit: false, glob: undefined, includeFiles: true, includeDirectories: false,
        deadline: performance.now() + 30000, signal: new AbortController().signal,
        accept: (directory, prefix, batch) => sink.accept(directory, prefix, batch) });
      const collected = await sink.join();
      console.log(JSON.stringify({ entries: collected.unsearchableEntries,
        directories: collected.unsearchableDirectories.sort(), workerBatches: sink.workerBatches }));
      worker.close();
    `;
    const child = await runProcess([...unprivileged, process.execPath, "-e", script], {
      cwd: REPO_ROOT,
      env: testEnv(),
    });
    expect(child.code, child.stderr).toBe(0);
    const counted = JSON.parse(child.stdout);
    expect(counted.workerBatches).toBeGreaterThan(0);
    expect(counted).toMatchObject({ entries: FILES_LEFT_OUT, directories: ["open/half/", "shut/"] });
  });

  test("a search that meets none says nothing of them", async () => {
    const { answer } = await search({ path: "open", recursive: false }, "off");
    expect(answer.content[0].text).not.toContain("could be listed but not searched");
    expect(answer.structuredContent.stats).not.toHaveProperty("unsearchableDirectories");
  });
});

describe("entries removed since the listing", () => {
  test("are still left out without a word: only a refused stat is counted", async () => {
    const gone = mkdtempSync(join(tmpdir(), "mcpkit-fs-gone-"));
    try {
      for (let i = 0; i < 20; i++) writeFileSync(join(gone, `f${i}.txt`), "");
      const collector = createCollector(collectorConfig(), entryStat());
      await walk(
        walkRequest(gone, {
          access: directoryAccess(),
          accept: (directory, prefix, batch) => {
            // Half of them removed between the listing and the stat.
            for (let i = 0; i < 20; i += 2) unlinkSync(join(gone, `f${i}.txt`));
            collector.add(directory.fd, directory.prefix, prefix, batch);
          },
        }),
      );
      const collected = collector.result();
      expect(collected.offered).toBe(10);
      expect(collected.unsearchableEntries).toBe(0);
      expect(collected.unsearchableDirectories).toEqual([]);
    } finally {
      rmSync(gone, { recursive: true, force: true });
    }
  });
});
