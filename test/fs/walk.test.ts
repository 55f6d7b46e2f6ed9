/**
 * The walk itself, in process, with both ways of reaching directories (descriptor-anchored where the
 * platform allows it, by path elsewhere): depth, links, and descriptors held O(depth) and all
 * released when the walk ends, is cancelled or runs out of time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type DirectoryAccess, directoryAccess, pathAccess } from "../../src/toolsets/fs/directories.ts";
import { walk } from "../../src/toolsets/fs/walk.ts";
import { descriptorsOn, namesOf, walkRequest } from "./support.ts";

const anchored = directoryAccess();
const accesses: [string, DirectoryAccess][] = [
  ["descriptor-anchored", anchored],
  ["by path", pathAccess()],
];
const openDescriptors = () => descriptorsOn(base);
const hasProc = existsSync("/proc/self/fd");

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "mcpkit-fs-walk-"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

test.skipIf(process.platform !== "linux")("Linux walks are anchored to descriptors", () => {
  expect(anchored.kind).toBe("descriptor");
});

test.skipIf(process.platform !== "linux")("…even for a process started in a deleted working directory", () => {
  const gone = mkdtempSync(join(tmpdir(), "mcpkit-gone-cwd-"));
  const probe = join(import.meta.dir, "../../src/toolsets/fs/directories.ts");
  const child = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { directoryAccess } = await import(${JSON.stringify(probe)}); console.log(directoryAccess().kind);`,
    ],
    { cwd: gone, stdout: "pipe", stderr: "pipe" },
  );
  rmSync(gone, { recursive: true, force: true });
  return new Response(child.stdout).text().then(async (out) => {
    expect(await child.exited).toBe(0);
    expect(out.trim()).toBe("descriptor");
  });
});

describe.each(accesses)("%s", (_name, access) => {
  test("maxDepth counts levels below the start; symlinks are neither followed nor reported", async () => {
    const root = join(base, `depth-${access.kind}`);
    for (const file of ["a", "d1/b", "d1/d2/c", "d1/d2/d3/d"]) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), "x");
    }
    symlinkSync(join(root, "d1"), join(root, "link"));
    const run = async (maxDepth: number, start = "") => {
      const found: string[] = [];
      const outcome = await walk(
        walkRequest(root, {
          start,
          maxDepth,
          maxDepthIsServerLimit: true,
          access,
          accept: (_directory, rel, batch) => found.push(...namesOf(batch).map((name) => rel + name)),
        }),
      );
      return { found: found.sort(), depthLimited: outcome.depthLimited };
    };
    expect(await run(0)).toEqual({ found: [], depthLimited: false });
    expect(await run(1)).toEqual({ found: ["a"], depthLimited: true });
    expect(await run(2)).toEqual({ found: ["a", "d1/b"], depthLimited: true });
    expect(await run(Number.POSITIVE_INFINITY)).toEqual({
      found: ["a", "d1/b", "d1/d2/c", "d1/d2/d3/d"],
      depthLimited: false,
    });
    expect((await run(Number.POSITIVE_INFINITY, "d1/d2")).found).toEqual(["c", "d3/d"]);
    expect(access.openCount).toBe(0);
  });

  test("every directory read counts as scanned, empty ones included", async () => {
    const root = join(base, `count-${access.kind}`);
    mkdirSync(join(root, "empty"), { recursive: true });
    mkdirSync(join(root, "full"));
    writeFileSync(join(root, "full", "f"), "x");
    const outcome = await walk(walkRequest(root, { access }));
    expect(outcome).toMatchObject({ scannedDirectories: 3, scannedFiles: 1, unreadableDirectories: 0 });
  });
});

describe.skipIf(!hasProc || anchored.kind !== "descriptor")("descriptors", () => {
  const FANOUT = 4;
  const DEPTH = 5; // 4 + 16 + … + 1024 = 1364 directories
  let tree: string;
  beforeAll(() => {
    tree = join(base, "wide");
    const build = (dir: string, level: number) => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "f"), "x");
      if (level < DEPTH) for (let i = 0; i < FANOUT; i++) build(join(dir, `c${i}`), level + 1);
    };
    build(tree, 0);
  });

  test("a whole walk holds O(depth) descriptors and gives every one back", async () => {
    const before = openDescriptors();
    let most = 0;
    let files = 0;
    let heldAtFirstBatch = 0;
    const outcome = await walk(
      walkRequest(tree, {
        accept: (_directory, _rel, batch) => {
          if (files === 0) heldAtFirstBatch = openDescriptors() - before; // the count sees the walk's own
          files += batch.count;
          most = Math.max(most, anchored.openCount);
        },
      }),
    );
    expect(outcome.scannedDirectories).toBe(1365);
    expect(files).toBe(1365);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(DEPTH + 2);
    expect(anchored.openCount).toBe(0);
    expect(heldAtFirstBatch).toBeGreaterThan(0);
    expect(openDescriptors()).toBe(before);
  });

  test("cancellation, the deadline and a failing consumer release every descriptor", async () => {
    const before = openDescriptors();
    const controller = new AbortController();
    let batches = 0;
    const cancelled = await walk(
      walkRequest(tree, {
        signal: controller.signal,
        accept: () => {
          if (++batches === 50) controller.abort();
        },
      }),
    );
    // The walk notices the abort at its next checkpoint (every directory at the latest).
    expect(cancelled.cancelled).toBe(true);
    expect(anchored.openCount).toBe(0);

    let batchesBeforeDeadline = 0;
    const timed = walkRequest(tree, {
      accept: () => {
        batchesBeforeDeadline++;
        timed.deadline = 0; // the deadline passes mid-walk, with directories still pending (no clock involved)
      },
    });
    const outOfTime = await walk(timed);
    expect(outOfTime.budgetExhausted).toBe(true);
    expect(outOfTime.scannedDirectories).toBeLessThan(1365);
    expect(batchesBeforeDeadline).toBeGreaterThan(0);
    expect(anchored.openCount).toBe(0);

    let calls = 0;
    await expect(
      walk(
        walkRequest(tree, {
          accept: () => {
            if (++calls === 100) throw new Error("consumer failed");
          },
        }),
      ),
    ).rejects.toThrow("consumer failed");
    expect(anchored.openCount).toBe(0);
    expect(openDescriptors()).toBe(before);
  });
});

describe("a glob whose matches are slow", () => {
  test("the walk reads the clock after each match: it stops at the deadline, not 32 matches later", async () => {
    const root = join(base, "slow-glob");
    mkdirSync(root, { recursive: true });
    for (let i = 0; i < 64; i++) writeFileSync(join(root, `f${i}.c`), "x");
    let matched = 0;
    // Each match busy-waits 3 ms (as an accepted pattern can on a 16 KB path): however fast the
    // machine, every match takes at least that, which is all the walk sees of it.
    const slowGlob = {
      matches: () => {
        matched++;
        const until = performance.now() + 3;
        while (performance.now() < until) {}
        return true;
      },
      mayMatchBelow: () => true,
    };
    const outcome = await walk(walkRequest(root, { glob: slowGlob, deadline: performance.now() + 1 }));
    expect(outcome.budgetExhausted).toBe(true);
    // The deadline passed during the first match: the clock read after it stops the walk (was 32).
    expect(matched).toBeLessThanOrEqual(2);
  });

  test("with a clock read after every entry, a glob walk still reports every match and runs to its end", async () => {
    const root = join(base, "fast-glob");
    mkdirSync(root, { recursive: true });
    for (let i = 0; i < 300; i++) writeFileSync(join(root, `f${i}.c`), "x");
    let matched = 0;
    const fastGlob = { matches: () => ++matched > 0, mayMatchBelow: () => true };
    const found: string[] = [];
    const outcome = await walk(
      walkRequest(root, { glob: fastGlob, accept: (_d, _p, batch) => found.push(...namesOf(batch)) }),
    );
    expect(outcome.budgetExhausted).toBeFalsy();
    expect(found).toHaveLength(300);
  });
});
