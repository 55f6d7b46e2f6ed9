/**
 * The native walk (`native-walk.ts`, C on POSIX threads) against the JavaScript walk it takes over
 * from: the same answers from `mcpkit call` on a tree with every kind of entry the walk treats
 * specially (links to files and to directories outside the root, a fifo, names that are not UTF-8,
 * empty and deep directories, more records than its 1 MB buffer holds), page by page; the fast
 * path taken where it fits and not elsewhere; and, in process, the deadline, cancellation, running
 * out of descriptors, and every descriptor given back. `--fs-native-walk 0` hands over right after
 * the start directory (no clock decides), `off` keeps the whole walk in JavaScript.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCollector, type KeptBound, type StatedBatch } from "../../src/toolsets/fs/collector.ts";
import type { CursorState } from "../../src/toolsets/fs/cursor.ts";
import { directoryAccess } from "../../src/toolsets/fs/directories.ts";
import { entryStat } from "../../src/toolsets/fs/entry-stat.ts";
import { libc } from "../../src/toolsets/fs/libc.ts";
import { type NativeRequest, nativeHandOffDue, nativeWalk } from "../../src/toolsets/fs/native-walk.ts";
import { likelyNativeWalk } from "../../src/toolsets/fs/native-thread.ts";
import { compileGlob } from "../../src/toolsets/fs/glob.ts";
import { prebuildNativeWalk } from "../../scripts/release/prebuilt-walk.ts";
import { mcpkitCommand, REPO_ROOT, runCli, runProcess, testEnv } from "../support/mcp.ts";
import { largeTreeDir } from "../support/scratch.ts";
import { collectorConfig, descriptorsOn, quietSearch, walkRequest } from "./support.ts";

const hasNativeWalk = process.platform === "linux" && libc() !== undefined;
const DAY = 86_400_000;
/** Root reads the locked directory below (DAC does not apply to it); another user gets EACCES. */
const readsLocked = process.getuid?.() === 0;
const now = Date.now();

let root: string;
let outside: string;

/** Sets a file's modified (and accessed) time to `daysAgo` days before now. */
function age(path: string, daysAgo: number): void {
  const when = new Date(now - daysAgo * DAY);
  utimesSync(path, when, when);
}

beforeAll(() => {
  // In memory where it can be: 3,000 files took 22.6 s on a disk other work kept busy, 0.08 s in /dev/shm.
  root = largeTreeDir("mcpkit-native-walk-");
  outside = largeTreeDir("mcpkit-native-outside-");
  writeFileSync(join(outside, "secret.txt"), "outside");
  writeFileSync(join(root, "a.txt"), "a");
  age(join(root, "a.txt"), 1);
  writeFileSync(join(root, "b.md"), "bb");
  age(join(root, "b.md"), 40);
  mkdirSync(join(root, "sub", "deeper", "deepest"), { recursive: true });
  writeFileSync(join(root, "sub", "x.txt"), "x");
  age(join(root, "sub", "x.txt"), 2);
  writeFileSync(join(root, "sub", "deeper", "y.txt"), "yy");
  age(join(root, "sub", "deeper", "y.txt"), 3);
  writeFileSync(join(root, "sub", "deeper", "deepest", "z.txt"), "zzz");
  age(join(root, "sub", "deeper", "deepest", "z.txt"), 5);
  mkdirSync(join(root, "empty"));
  symlinkSync(join(root, "a.txt"), join(root, "link-to-file"));
  symlinkSync(outside, join(root, "link-to-outside"));
  Bun.spawnSync(["mkfifo", join(root, "fifo")]);
  // Names that are not UTF-8: a file (counted, never reported) and a directory (skipped whole).
  writeFileSync(Buffer.from(`${root}/bad-\xff.txt`, "latin1"), "bad");
  mkdirSync(Buffer.from(`${root}/dir-\xfe`, "latin1"));
  writeFileSync(Buffer.from(`${root}/dir-\xfe/inner.txt`, "latin1"), "inner");
  // Names a decoder that drops a leading U+FEFF would read as "..", "." or another directory's.
  for (const [directory, file] of [
    ["\uFEFF..", "bom-dotdot.txt"],
    ["\uFEFF.", "bom-dot.txt"],
    ["\uFEFFd", "bom-d.txt"],
    ["d", "plain-d.txt"],
  ]) {
    mkdirSync(join(root, "sub", directory));
    writeFileSync(join(root, "sub", directory, file), file);
    age(join(root, "sub", directory, file), 40);
  }
  // A directory this user cannot read (root reads it all the same; both walks must agree either way).
  mkdirSync(join(root, "sub", "deeper", "locked"));
  writeFileSync(join(root, "sub", "deeper", "locked", "hidden.txt"), "h");
  age(join(root, "sub", "deeper", "locked", "hidden.txt"), 40);
  chmodSync(join(root, "sub", "deeper", "locked"), 0o000);
  // The same below the start, where the native walk (handed over after the start) meets them.
  writeFileSync(Buffer.from(`${root}/sub/bad-\xff.txt`, "latin1"), "bad");
  mkdirSync(Buffer.from(`${root}/sub/dir-\xfe`, "latin1"));
  writeFileSync(Buffer.from(`${root}/sub/dir-\xfe/inner.txt`, "latin1"), "inner");
  // More records than the C side's 1 MB buffer holds (about 400 bytes each), so it is drained many times.
  mkdirSync(join(root, "many"));
  for (let i = 0; i < 3000; i++) {
    const path = join(root, "many", `${"n".repeat(100)}-${String(i).padStart(4, "0")}.txt`);
    writeFileSync(path, "");
    age(path, (i % 60) + 0.5);
  }
}, 60_000);

afterAll(() => {
  chmodSync(join(root, "sub", "deeper", "locked"), 0o755);
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

interface Answer {
  content: { text: string }[];
  structuredContent: { matches: { path: string }[]; nextCursor: string | null } & Record<string, unknown>;
}

/** The native walk taking over right after the start directory, or kept out. */
type Walks = "0" | "off";

/** One `mcpkit call` of the search of `tree` (the shared tree by default), by `mcpkit` (the tested one by default). */
async function search(
  args: Record<string, unknown>,
  walks: Walks,
  extra: string[] = [],
  tree = root,
  mcpkit = mcpkitCommand(),
): Promise<Answer> {
  const run = await runProcess(
    [...mcpkit, "call", "fs_search_by_time", JSON.stringify(args), "--root", tree, "--fs-native-walk", walks, ...extra],
    { cwd: REPO_ROOT, env: testEnv() },
  );
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Answer;
}

/** Every page of a search, through its cursors (20 at most): each page's paths. */
async function pages(args: Record<string, unknown>, walks: Walks, tree = root): Promise<string[][]> {
  const paths: string[][] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 20; page++) {
    const answer = await search(cursor ? { ...args, cursor } : args, walks, [], tree);
    paths.push(answer.structuredContent.matches.map((match) => match.path));
    cursor = answer.structuredContent.nextCursor;
    if (!cursor) break;
  }
  return paths;
}

/** The walker a search ran on, as its debug log line names it (`javascript`, `javascript+native`). */
const walkerIn = (stderr: string) => /walker="([\w+]+)"/.exec(stderr)?.[1];

/** What two runs of the same search must share: everything but the clock and the cursor's own bytes. */
function comparable(answer: Answer): unknown {
  const {
    nextCursor,
    serverTime: _clock,
    ...rest
  } = answer.structuredContent as typeof answer.structuredContent & {
    serverTime?: string;
  };
  return {
    structured: { ...rest, nextCursor: nextCursor !== null },
    text: answer.content.map((part) => part.text.replace(/Server time: \S+/, "").replace(/cursor "[^"]+"/g, "cursor")),
  };
}

const from = new Date(now - 10 * DAY).toISOString();
const to = new Date(now - 1.5 * DAY).toISOString();
const searches: [string, Record<string, unknown>, string[]][] = [
  ["every file", { timeField: "modified", limit: 100 }, []],
  ["a window", { timeField: "modified", from, to, limit: 100 }, []],
  ["oldest first", { timeField: "modified", sort: "time_asc", limit: 25 }, []],
  ["by path", { timeField: "modified", sort: "path_asc", limit: 25 }, []],
  ["created time", { timeField: "created", limit: 20, includeUnknownTime: true }, []],
  ["two levels", { timeField: "modified", maxDepth: 2, limit: 100 }, []],
  ["one level", { timeField: "modified", recursive: false, includeDirectories: true }, []],
  ["directories too", { timeField: "modified", includeDirectories: true, limit: 100 }, []],
  ["directories only", { timeField: "modified", includeFiles: false, includeDirectories: true }, []],
  ["below the root", { timeField: "modified", path: "sub" }, []],
  ["the server's depth", { timeField: "modified", limit: 100 }, ["--fs-max-depth", "2"]],
];

describe.skipIf(!hasNativeWalk)("the native walk answers as the JavaScript walk does", () => {
  test.each(searches)("%s", async (_name, args, extra) => {
    const [native, javascript] = await Promise.all([search(args, "0", extra), search(args, "off", extra)]);
    expect(comparable(native)).toEqual(comparable(javascript));
    expect(native.structuredContent.matches.length).toBeGreaterThan(0);
  });

  // The 500 of "many" in the window share ten modified times, 50 files each. A page ends inside
  // such a run of equal times (newest first at 200 and 400, oldest first at 400) or at a run's
  // end (oldest first at 200): the two places a cursor must resume. Pages of 200 meet both, as
  // pages of 50 did, with a first, a middle and a last page, in 12 processes instead of 44.
  test("pages of 200 through the cursor, newest or oldest first: the same matches, counts and text", async () => {
    for (const sort of ["time_desc", "time_asc"]) {
      const args = { timeField: "modified", from, limit: 200, sort };
      const [native, javascript] = await Promise.all([pages(args, "0"), pages(args, "off")]);
      expect({ sort, native }).toEqual({ sort, native: javascript });
      expect(native.map((page) => page.length)).toEqual([200, 200, 104]);
    }
  }, 120_000);

  test("entries changed between two pages are settled alike: a page 2 after chmod matches the JavaScript walk's", async () => {
    const args = { timeField: "modified", from, limit: 50 };
    const first = await search(args, "off");
    const cursor = first.structuredContent.nextCursor as string;
    // Older than the first page, within the window: behind what page 2 keeps, changed since paging began.
    const changed = readdirSync(join(root, "many")).filter((_, index) => index % 60 >= 5 && index % 60 < 9);
    for (const name of changed) chmodSync(join(root, "many", name), 0o600);
    try {
      const [native, javascript] = await Promise.all([
        search({ ...args, cursor }, "0"),
        search({ ...args, cursor }, "off"),
      ]);
      expect(comparable(native)).toEqual(comparable(javascript));
    } finally {
      for (const name of changed) chmodSync(join(root, "many", name), 0o644);
    }
  });

  test("page after page through the cursor, the same matches in the same order", async () => {
    const args = { timeField: "modified", from, limit: 400 };
    const [native, javascript] = (await Promise.all([pages(args, "0"), pages(args, "off")])).map((all) => all.flat());
    expect(native).toEqual(javascript);
    // Every file within ten days: 3 of the top files and a sixth of the 3,000 in "many".
    expect(native.length).toBe(4 + 500);
    expect(native).not.toContain("link-to-file");
    expect(native.some((path) => path.includes("secret") || path.includes("inner"))).toBe(false);
  });
});

describe.skipIf(!hasNativeWalk)("times a nanosecond below a whole second", () => {
  // A time in ms is seconds * 1000 + ns / 1e6 in a double, which rounds 1700000000.999999999 s up
  // to exactly 1700000001000 ms: whole-second shortcuts in C must not settle such an entry.
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), "mcpkit-native-ns-"));
    mkdirSync(join(base, "sub"));
    writeFileSync(join(base, "z.txt"), "z");
    writeFileSync(join(base, "a.txt"), "a");
    writeFileSync(join(base, "sub", "b.txt"), "b");
    const touched = [
      Bun.spawnSync(["touch", "-m", "-d", "@1700000001.000000000", join(base, "z.txt")]),
      Bun.spawnSync(["touch", "-m", "-d", "@1699999999.500000000", join(base, "a.txt")]),
      Bun.spawnSync(["touch", "-m", "-d", "@1700000000.999999999", join(base, "sub", "b.txt")]),
    ];
    for (const touch of touched) expect(touch.exitCode).toBe(0);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  test.each([
    ["newest first, one a page", { timeField: "modified", limit: 1 }],
    [
      "oldest first, up to a 'to' equal to the rounded time",
      { timeField: "modified", sort: "time_asc", limit: 1, to: "2023-11-14T22:13:21Z" },
    ],
  ])("%s: the same pages from both walks", async (_name, args) => {
    const [native, javascript] = await Promise.all([pages(args, "0", base), pages(args, "off", base)]);
    expect(native).toEqual(javascript);
    expect(native.flat().length).toBeGreaterThan(0);
  });
});

describe("names that begin with U+FEFF", () => {
  test.each([
    ["native", "0"],
    ["JavaScript", "off"],
  ] as [string, Walks][])(
    "the %s walk reads them as they are: never as '..', '.' or another directory",
    async (_name, walks) => {
      const answer = await search({ timeField: "modified", path: "sub", limit: 100 }, walks);
      const paths = answer.structuredContent.matches.map((match) => match.path);
      expect(paths).toContain("sub/\uFEFF../bom-dotdot.txt");
      expect(paths).toContain("sub/\uFEFF./bom-dot.txt");
      expect(paths).toContain("sub/\uFEFFd/bom-d.txt");
      expect(paths).toContain("sub/d/plain-d.txt");
      for (const path of paths) {
        expect(path.startsWith("sub/")).toBe(true);
        expect(path.split("/")).not.toContain("..");
      }
    },
  );

  test("a root holding '\uFEFF..' reports nothing from its parent, with either walk", async () => {
    const base = mkdtempSync(join(tmpdir(), "mcpkit-bom-"));
    try {
      writeFileSync(join(base, "outside-marker.txt"), "outside");
      mkdirSync(join(base, "root", "\uFEFF.."), { recursive: true });
      writeFileSync(join(base, "root", "\uFEFF..", "inside.txt"), "inside");
      for (const setting of ["0", "off"] as Walks[]) {
        const answer = await search({ timeField: "modified", limit: 100 }, setting, [], join(base, "root"));
        const paths = answer.structuredContent.matches.map((match) => match.path);
        expect({ setting, paths }).toEqual({ setting, paths: ["\uFEFF../inside.txt"] });
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

/**
 * The walk as a Linux release embeds it, compiled with this machine's C compiler, when it has one
 * (`scripts/release/prebuilt-walk.ts`); the reason otherwise.
 */
const prebuilt = hasNativeWalk ? prebuildNativeWalk(REPO_ROOT, undefined) : { reason: "no native walk here" };
/** `bun src/main.ts` with a prebuilt walk `library` (base64) defined as a release build defines it. */
const sourcesWithPrebuilt = (library: string) => [
  process.execPath,
  "--define",
  `MCPKIT_PREBUILT_NATIVE_WALK=${JSON.stringify(library)}`,
  join(REPO_ROOT, "src/main.ts"),
];

describe.skipIf(!hasNativeWalk)("the walk compiled ahead (a release's)", () => {
  if (!("library" in prebuilt)) {
    test.skip(`skipped: ${prebuilt.reason}`, () => {});
    return;
  }
  const mcpkit = sourcesWithPrebuilt(Buffer.from(prebuilt.library).toString("base64"));

  test("is an ELF shared library for this machine; none is built for a target without the native walk", () => {
    expect([...prebuilt.library.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(prebuildNativeWalk(REPO_ROOT, "darwin-arm64")).toEqual({
      reason: "the native walk is Linux-only: none for darwin-arm64",
    });
  });

  test.each(searches)("answers as the JavaScript walk does: %s", async (_name, args, extra) => {
    const [native, javascript] = await Promise.all([
      search(args, "0", extra, root, mcpkit),
      search(args, "off", extra),
    ]);
    expect(comparable(native)).toEqual(comparable(javascript));
  });

  /** The walker and where its code came from, for a one-shot search by `command` with `TMPDIR`. */
  const walkBy = async (command: string[], temporary = tmpdir()) => {
    const args = ["call", "fs_search_by_time", '{"timeField":"modified"}', "--root", root, "--log-level", "debug"];
    const run = await runProcess([...command, ...args], { cwd: REPO_ROOT, env: testEnv({ TMPDIR: temporary }) });
    expect(run.code, run.stderr).toBe(0);
    return /walker="([\w+]+)" compiledBy="([\w ]+)"/.exec(run.stderr)?.slice(1);
  };

  test("is what the search runs, loaded from memory: nothing written to the temporary directory, even one others may write to", async () => {
    const shared = mkdtempSync(join(tmpdir(), "mcpkit-shared-tmp-"));
    try {
      chmodSync(shared, 0o777); // no sticky bit: TinyCC's source file could be swapped there
      expect(await walkBy(mcpkit, shared)).toEqual(["javascript+native", "prebuilt"]);
      expect(readdirSync(shared)).toEqual([]);
      // No temporary directory at all: a library written to a file could not be loaded.
      expect(await walkBy(mcpkit, join(shared, "missing"))).toEqual(["javascript+native", "prebuilt"]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  test("a library that does not load, or loads but cannot start a walk, leaves the walk to TinyCC", async () => {
    const notALibrary = Buffer.from("not an ELF file").toString("base64");
    expect(await walkBy(sourcesWithPrebuilt(notALibrary))).toEqual(["javascript+native", "search"]);
    const stub = mkdtempSync(join(tmpdir(), "mcpkit-stub-walk-"));
    try {
      writeFileSync(
        join(stub, "stub.c"),
        "void *walk_start(void) { return 0; }\nint walk_drain(void) { return 0; }\nvoid walk_finish(void) {}\n",
      );
      const built = Bun.spawnSync(["cc", "-shared", "-fPIC", "-o", join(stub, "stub.so"), join(stub, "stub.c")]);
      expect(built.exitCode, built.stderr.toString()).toBe(0);
      const neverStarts = Buffer.from(readFileSync(join(stub, "stub.so"))).toString("base64");
      expect(await walkBy(sourcesWithPrebuilt(neverStarts))).toEqual(["javascript+native", "search"]);
    } finally {
      rmSync(stub, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasNativeWalk)("the fast path", () => {
  /** A compiled binary built here embeds the walk when this machine has a C compiler (`bun run build`). */
  const binaryHasPrebuilt = Boolean(process.env.MCPKIT_BIN) && "library" in prebuilt;
  const walkOf = async (args: Record<string, unknown>, setting: string, env: Record<string, string> = {}) => {
    const run = await runCli(
      ["call", "fs_search_by_time", JSON.stringify(args), "--root", root, "--log-level", "debug"],
      { env: { MCPKIT_FS_NATIVE_WALK: setting, ...env } },
    );
    expect(run.code, run.stderr).toBe(0);
    return {
      walker: walkerIn(run.stderr),
      compiledBy: /compiledBy="([\w ]+)"/.exec(run.stderr)?.[1],
    };
  };

  test("a one-shot search without a glob hands over to the native walk: prebuilt in a binary built here, else compiled by the thread it started with", async () => {
    expect(await walkOf({ timeField: "modified" }, "0")).toEqual({
      walker: "javascript+native",
      compiledBy: binaryHasPrebuilt ? "prebuilt" : "compile thread",
    });
    expect(await walkOf({ timeField: "modified" }, "0", { MCPKIT_FS_NATIVE_PREBUILT: "off" })).toEqual({
      walker: "javascript+native",
      compiledBy: "compile thread",
    });
  });

  test("a first page ranks about `limit` of the native walk's matches here, not all of them: C keeps its own top-k", async () => {
    const recordsOf = async (args: Record<string, unknown>) => {
      const run = await runCli(
        ["call", "fs_search_by_time", JSON.stringify(args), "--root", root, "--log-level", "debug"],
        { env: { MCPKIT_FS_NATIVE_WALK: "0" } },
      );
      expect(run.code, run.stderr).toBe(0);
      return Number(/nativeRecords=(\d+)/.exec(run.stderr)?.[1]);
    };
    // Below the root: the 3,000 of "many", x, y, z, the four below sub and sub's undecodable file.
    // Without C's own top-k it sends them all: the walk ends before this thread drains it once.
    for (const sort of ["time_desc", "time_asc"])
      expect({ sort, fewer: (await recordsOf({ timeField: "modified", sort, limit: 5 })) < 3000 / 4 }).toEqual({
        sort,
        fewer: true,
      });
    // By path, C cannot settle anything on time: every match is ranked here.
    expect(await recordsOf({ timeField: "modified", sort: "path_asc", limit: 5 })).toBeGreaterThanOrEqual(3000);
  });

  test("not with a glob (only the JavaScript walk matches names), nor with MCPKIT_FS_NATIVE_WALK=off", async () => {
    expect(await walkOf({ timeField: "modified", glob: "**/*.txt" }, "0")).toEqual({
      walker: "javascript",
      compiledBy: undefined,
    });
    expect((await walkOf({ timeField: "modified" }, "off")).walker).toBe("javascript");
  });

  test("a search over before the compiling thread is done leaves nothing in the temporary directory", async () => {
    const temporary = mkdtempSync(join(tmpdir(), "mcpkit-tmpdir-"));
    try {
      // The compiled binary ends such a search within the compile's 5–8 ms; from source it rarely does.
      for (let run = 0; run < 5; run++) {
        const args = JSON.stringify({ timeField: "modified" });
        const result = await runCli(["call", "fs_search_by_time", args, "--root", join(root, "empty")], {
          env: { TMPDIR: temporary, MCPKIT_FS_NATIVE_PREBUILT: "off" },
        });
        expect(result.code, result.stderr).toBe(0);
      }
      // Bun's own TinyCC keeps a directory of its own there (bun-cc-UID), for every process of the user.
      expect(readdirSync(temporary).filter((name) => name.startsWith("mcpkit-"))).toEqual([]);
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  });

  test("TinyCC never compiles from a temporary directory other users may rename entries of: the search stays in JavaScript", async () => {
    const shared = mkdtempSync(join(tmpdir(), "mcpkit-shared-tmp-"));
    try {
      chmodSync(shared, 0o777); // writable by all, no sticky bit
      const args = JSON.stringify({ timeField: "modified" });
      const run = await runCli(["call", "fs_search_by_time", args, "--root", root, "--log-level", "debug"], {
        env: { TMPDIR: shared, MCPKIT_FS_NATIVE_PREBUILT: "off", MCPKIT_FS_NATIVE_WALK: "0" },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(walkerIn(run.stderr)).toBe("javascript");
      expect(readdirSync(shared)).toEqual([]);
      chmodSync(shared, 0o1777); // as /tmp is: only an entry's owner may rename it
      const sticky = await runCli(["call", "fs_search_by_time", args, "--root", root, "--log-level", "debug"], {
        env: { TMPDIR: shared, MCPKIT_FS_NATIVE_PREBUILT: "off", MCPKIT_FS_NATIVE_WALK: "0" },
      });
      expect(walkerIn(sticky.stderr)).toBe("javascript+native");
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });

  test("main.ts starts the compiling thread for a one-shot search that will likely hand over", () => {
    expect(likelyNativeWalk(["call", "fs.search_by_time", '{"timeField":"modified"}'], {})).toBe(true);
    expect(likelyNativeWalk(["call", "fs.search_by_time", "{}", "--fs-native-walk", "0"], {})).toBe(true);
    // The stat thread instead: a glob, the native walk off, or arguments still on stdin.
    expect(likelyNativeWalk(["call", "fs.search_by_time", '{"timeField":"modified","glob":"*.ts"}'], {})).toBe(false);
    expect(likelyNativeWalk(["call", "fs.search_by_time", "{}", "--fs-native-walk", "off"], {})).toBe(false);
    expect(likelyNativeWalk(["call", "fs.search_by_time", "{}", "--fs-native-walk=off"], {})).toBe(false);
    expect(likelyNativeWalk(["call", "fs.search_by_time", "{}"], { MCPKIT_FS_NATIVE_WALK: "off" })).toBe(false);
    expect(likelyNativeWalk(["call", "fs.search_by_time", "-"], {})).toBe(false);
  });

  test("when it hands over: auto after 10 ms until compiled, then at once; N ms; never off, with a glob or past its depth", async () => {
    // A fresh process has compiled nothing and started no compiling thread.
    const fresh = await runProcess(
      [
        process.execPath,
        "-e",
        `const { nativeHandOffDue } = await import(${JSON.stringify(join(import.meta.dir, "../../src/toolsets/fs/native-walk.ts"))});
         const { directoryAccess } = await import(${JSON.stringify(join(import.meta.dir, "../../src/toolsets/fs/directories.ts"))});
         const due = nativeHandOffDue({ glob: undefined, maxDepth: 64 }, directoryAccess(), "auto");
         console.log(JSON.stringify([due(0), due(9.9), due(10)]));`,
      ],
      { env: testEnv() },
    );
    expect(fresh.stdout.trim(), fresh.stderr).toBe("[false,false,true]");
    const access = directoryAccess();
    const plain = walkRequest(root, { maxDepth: 64 });
    const glob = compileGlob("*.txt");
    if (typeof glob === "string") throw new Error(glob);
    const start = access.openStart(join(root, "empty"), "");
    const starts = [{ fd: start.fd, direct: true, relative: "", depth: 1 }];
    await nativeWalk(plain, starts, quietSearch).finally(() => start.release());
    expect(nativeHandOffDue(plain, access, "auto")?.(0)).toBe(true);
    const after25 = nativeHandOffDue(plain, access, 25);
    expect([after25?.(24.9), after25?.(25)]).toEqual([false, true]);
    expect(nativeHandOffDue(plain, access, "off")).toBeUndefined();
    expect(nativeHandOffDue(walkRequest(root, { maxDepth: 64, glob }), access, "auto")).toBeUndefined();
    expect(nativeHandOffDue(walkRequest(root, { maxDepth: 1000 }), access, "auto")).toBeUndefined();
  });

  test("where the C cannot be compiled (no writable temporary directory), the JavaScript walk answers alone", async () => {
    const args = ["call", "fs_search_by_time", '{"timeField":"modified","limit":100}', "--root", root];
    const broken = await runCli([...args, "--fs-native-walk", "0", "--log-level", "debug"], {
      // A binary's prebuilt walk needs no temporary directory (a test above): TinyCC does.
      env: { TMPDIR: join(root, "no-such-directory"), MCPKIT_FS_NATIVE_PREBUILT: "off" },
    });
    expect(broken.code, broken.stderr).toBe(0);
    expect(walkerIn(broken.stderr)).toBe("javascript");
    const javascript = await search({ timeField: "modified", limit: 100 }, "off");
    expect(comparable(JSON.parse(broken.stdout) as Answer)).toEqual(comparable(javascript));
  });

  test("--help and the README name MCPKIT_FS_NATIVE_PREBUILT, the switch from the embedded walk to TinyCC", async () => {
    const help = await runCli(["--help"]);
    expect(help.stdout).toContain("MCPKIT_FS_NATIVE_PREBUILT=off");
    expect(readFileSync(join(REPO_ROOT, "README.md"), "utf8")).toContain("MCPKIT_FS_NATIVE_PREBUILT=off");
  });

  test("--fs-native-walk takes auto, off or milliseconds, and names the fix otherwise", async () => {
    const run = await runCli([
      "call",
      "fs_search_by_time",
      '{"timeField":"modified"}',
      "--root",
      root,
      "--fs-native-walk",
      "soon",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--fs-native-walk");
    expect(run.stderr).toContain("expected auto, off, or a whole number of milliseconds");
  });
});

describe.skipIf(!hasNativeWalk || !existsSync("/proc/self/fd"))("in process", () => {
  /** Descriptors this process holds on the tree (pipes of other tests' processes come and go meanwhile). */
  const openDescriptors = () => descriptorsOn(root);
  /**
   * The native walk of the whole tree from its root, ranked by a collector (limit 5, newest first).
   * `settles`: what the ranking tells C it keeps, so C leaves out of what it sends what is behind:
   * the collector's own bound, a fixed one from the start, or never anything. `ranked`: the
   * search's `keeps` (C's own top-k of what it sent) and order.
   */
  const run = async (
    overrides: Partial<NativeRequest>,
    settles: KeptBound | "collector" | "never" = "collector",
    resume: CursorState | null = null,
    ranked: { keeps?: number; sort?: "time_desc" | "time_asc" } = {},
  ) => {
    const sort = ranked.sort ?? "time_desc";
    const collector = createCollector(collectorConfig({ limit: 5, resume, sort }), entryStat());
    let sent = 0;
    const ranking = {
      acceptStated: (batch: StatedBatch) => {
        sent += batch.count;
        collector.addStated(batch);
      },
      keptBound: () => (settles === "never" ? undefined : settles === "collector" ? collector.keptBound() : settles),
      addBehind: (count: number) => collector.addBehind(count),
    };
    const start = directoryAccess().openStart(root, "");
    try {
      const outcome = await nativeWalk(
        walkRequest(root, { maxDepth: 64, ...overrides }),
        [{ fd: start.fd, direct: true, relative: "", depth: 1 }],
        {
          ...quietSearch,
          ranking,
          pagingSince: resume?.since ?? null,
          keeps: ranked.keeps,
          oldestFirst: sort === "time_asc",
        },
      );
      if (!outcome) throw new Error("the native walk did not run");
      return { outcome, collected: collector.result(), sent, bound: collector.keptBound() };
    } finally {
      start.release();
    }
  };

  test("entries behind the kept ones are counted in C, not sent: the same counts and page, far fewer records", async () => {
    // Kept so far: nothing older than ten days can make the page.
    const settled = await run({}, { time: now - 10 * DAY, descending: true });
    const all = await run({}, "never");
    // Every regular file, the two undecodable ones included (and hidden.txt where it is read).
    expect(all.sent).toBe(3009 + 2 + (readsLocked ? 1 : 0));
    // Sent: a, x, y, z, the two undecodable ones (new) and the 500 of "many" within ten days.
    expect(settled.sent).toBe(4 + 2 + 500);
    expect(settled.collected.offered).toBe(all.collected.offered);
    expect(settled.collected.kept.map((entry) => entry.path).sort()).toEqual(
      all.collected.kept.map((entry) => entry.path).sort(),
    );
  });

  test("on a first page C also settles what is behind the best `keeps` it sent itself: the same counts and page, far fewer records", async () => {
    for (const sort of ["time_desc", "time_asc"] as const) {
      // Nothing from the ranking: only C's own top-k of what it sent leaves entries out.
      const own = await run({}, "never", null, { keeps: 5, sort });
      const all = await run({}, "never", null, { sort });
      expect(all.sent).toBe(3009 + 2 + (readsLocked ? 1 : 0));
      // At most the 50 newest (or oldest) of "many", which share their second, the two
      // undecodable ones and those sent before better ones came: a few dozen, whatever the order.
      expect({ sort, fewer: own.sent < all.sent / 4 }).toEqual({ sort, fewer: true });
      expect(own.collected.offered).toBe(all.collected.offered);
      expect(own.collected.undecodableSkipped).toBe(all.collected.undecodableSkipped);
      expect(own.collected.kept.map((entry) => entry.path).sort()).toEqual(
        all.collected.kept.map((entry) => entry.path).sort(),
      );
    }
  });

  test("on a cursor's page too: behind the kept ones, C counts what is unchanged since paging began and drops the rest", async () => {
    const tenDays = { time: now - 10 * DAY, descending: true };
    // Nothing is on an earlier page; paging began after every change, or before all of them.
    for (const since of [now + DAY, 1]) {
      const resume: CursorState = { position: { time: now + DAY, path: "" }, since };
      const settled = await run({}, tenDays, resume);
      const all = await run({}, "never", resume);
      expect(settled.sent).toBe(4 + 2 + 500);
      expect({ since, offered: settled.collected.offered }).toEqual({ since, offered: all.collected.offered });
      expect(settled.collected.kept.map((entry) => entry.path).sort()).toEqual(
        all.collected.kept.map((entry) => entry.path).sort(),
      );
    }
    // The collector gives C its bound on a cursor's page too, once it keeps `limit`.
    const unchanged: CursorState = { position: { time: now + DAY, path: "" }, since: now + DAY };
    expect((await run({}, "never", unchanged)).bound).toEqual({ time: expect.any(Number), descending: true });
    // Unchanged: every regular file counts (as on a first page); all changed since: none does.
    expect(
      (await run({}, tenDays, { position: { time: now + DAY, path: "" }, since: now + DAY })).collected.offered,
    ).toBe(3009 + (readsLocked ? 1 : 0));
    expect((await run({}, tenDays, { position: { time: now + DAY, path: "" }, since: 1 })).collected.offered).toBe(0);
  });

  test("a cursor's since around the entries' own ctimes, to the millisecond: C settles as the collector does", async () => {
    // A behind entry never shows on the page, so only its count can go wrong: compare it with
    // everything sent to the collector, for a since just before, at and after each ctime second.
    const tenDays = { time: now - 10 * DAY, descending: true };
    const ctimes = readdirSync(join(root, "many")).map((name) => statSync(join(root, "many", name)).ctimeMs);
    const sinces = new Set<number>();
    for (const second of new Set(ctimes.map((ms) => Math.floor(ms / 1000))))
      for (const offset of [-1000, 0, 1, 500, 999, 1000, 1001, 2000]) sinces.add(second * 1000 + offset);
    for (const ms of [Math.min(...ctimes), Math.max(...ctimes)])
      for (const offset of [-1, 0, 1]) sinces.add(Math.floor(ms) + offset);
    let settledSome = 0;
    for (const since of sinces) {
      const resume: CursorState = { position: { time: now + DAY, path: "" }, since };
      const settled = await run({}, tenDays, resume);
      const all = await run({}, "never", resume);
      if (settled.sent < all.sent) settledSome++;
      expect({ since, offered: settled.collected.offered }).toEqual({ since, offered: all.collected.offered });
    }
    expect(settledSome).toBeGreaterThan(0);
  });

  test("a whole walk counts what the JavaScript walk counts and gives every descriptor back", async () => {
    const before = openDescriptors();
    const { outcome, collected } = await run({});
    expect(openDescriptors()).toBe(before);
    const locked = readsLocked ? 1 : 0;
    // a, b, x, y, z, the 3,000, the four in sub's U+FEFF and d directories, the fifo, the two
    // undecodable files and (if read) hidden.txt; links are not counted.
    expect(outcome.scannedFiles).toBe(3009 + 3 + locked);
    // The root, sub, deeper, deepest, empty, many, the four below sub and (if read) locked; not the
    // two undecodable directories.
    expect(outcome.scannedDirectories).toBe(10 + locked);
    expect(outcome.unreadableDirectories).toBe(1 - locked);
    expect(outcome.undecodableDirectories).toBe(2);
    // Every regular file but the undecodable ones, which qualify (the newest) but cannot be named.
    expect(collected.offered).toBe(3009 + locked);
    expect(collected.undecodableSkipped).toBe(2);
  });

  test("a deadline already past stops it, with every descriptor back", async () => {
    const before = openDescriptors();
    const { outcome } = await run({ deadline: performance.now() - 1 });
    expect(outcome.budgetExhausted).toBe(true);
    expect(openDescriptors()).toBe(before);
  });

  test("a cancelled call stops it, with every descriptor back", async () => {
    const before = openDescriptors();
    const controller = new AbortController();
    controller.abort();
    const { outcome } = await run({ signal: controller.signal });
    expect(outcome.cancelled).toBe(true);
    expect(openDescriptors()).toBe(before);
  });

  test("out of descriptors: the directories it could not open are counted as such", async () => {
    // A child whose descriptor table is full once the start is open (ulimit -n 64), so every
    // subdirectory's openat fails with EMFILE whatever order the threads take them in.
    const module = (name: string) => JSON.stringify(join(import.meta.dir, `../../src/toolsets/fs/${name}.ts`));
    const script = `
      const { nativeWalk } = await import(${module("native-walk")});
      const { directoryAccess } = await import(${module("directories")});
      const { openSync } = await import("node:fs");
      const request = { maxDepth: 64, maxDepthIsServerLimit: false, glob: undefined, includeFiles: true,
        includeDirectories: false, deadline: performance.now() + 30000, signal: new AbortController().signal };
      const ranking = { acceptStated() {}, keptBound() {}, addBehind() {} };
      const search = { ranking, startPrefix: "", timeField: "modified", from: null, to: null, oldestFirst: false, scannedBefore: 0 };
      const walkFrom = (start) => nativeWalk(request, [{ fd: start.fd, direct: true, relative: "", depth: 1 }], search);
      await walkFrom(directoryAccess().openStart(${JSON.stringify(join(root, "empty"))}, "")); // compiles it
      const start = directoryAccess().openStart(${JSON.stringify(root)}, "");
      for (;;) { try { openSync("/dev/null", "r"); } catch { break; } }
      const outcome = await walkFrom(start);
      console.log(JSON.stringify(outcome));
    `;
    const child = await runProcess(["sh", "-c", `ulimit -n 64 && exec "${process.execPath}" -e '${script}'`], {
      env: testEnv(),
    });
    expect(child.code, child.stderr).toBe(0);
    const outcome = JSON.parse(child.stdout);
    expect(outcome.outOfDescriptors).toBe(true);
    // sub, empty and many below the root could not be opened.
    expect(outcome.unreadableDirectories).toBe(3);
    expect(outcome.scannedDirectories).toBe(1);
  });
});

describe.skipIf(!hasNativeWalk)("stat order", () => {
  test("a directory's entries are stat'ed in inode order, not listing order (fewer cache misses in the kernel)", async () => {
    const dir = largeTreeDir("mcpkit-native-order-");
    try {
      // Inodes in creation order; renaming in another order makes the listing order differ from it
      // on file systems that list by hash (ext4) and on those that list by insertion (tmpfs).
      const count = 300;
      for (let i = 0; i < count; i++) writeFileSync(join(dir, `f${i}`), "");
      for (let i = 0; i < count; i++) {
        const from = (i * 7919) % count;
        renameSync(join(dir, `f${from}`), join(dir, `g${from}`));
      }
      const inode = (name: string) => statSync(join(dir, name), { bigint: true }).ino;
      const ascending = (inodes: bigint[]) => inodes.every((ino, at) => at === 0 || inodes[at - 1] < ino);
      // The premise: listing order alone would fail the check below.
      expect(ascending(readdirSync(dir).map(inode))).toBe(false);

      const stated: string[] = [];
      const ranking = {
        acceptStated: (batch: StatedBatch) => {
          for (let index = 0; index < batch.count; index++) stated.push(batch.exactName(index) as string);
        },
        keptBound: () => undefined,
        addBehind() {},
      };
      const start = directoryAccess().openStart(dir, "");
      try {
        const outcome = await nativeWalk(
          walkRequest(dir, { maxDepth: 64 }),
          [{ fd: start.fd, direct: true, relative: "", depth: 1 }],
          { ...quietSearch, ranking },
        );
        expect(outcome).toBeDefined();
      } finally {
        start.release();
      }
      expect(stated.length).toBe(count);
      expect(ascending(stated.map(inode))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
