/**
 * The collector's flat loop over raw listings (`collector.ts` addRaw): it calls statx and reads the
 * result's words itself, settling most entries on their whole seconds, because a one-shot search
 * runs mostly before the JIT has optimized anything. It must rank exactly what the EntryStat
 * accessors rank (same times to the nanosecond, same boundaries, links, unknown birth times and
 * cursors), and it must stay the path a raw listing takes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Collected, type CollectorConfig, createCollector } from "../../src/toolsets/fs/collector.ts";
import { directoryAccess } from "../../src/toolsets/fs/directories.ts";
import { type EntryStat, entryStat, statxEntryStat } from "../../src/toolsets/fs/entry-stat.ts";
import { walk } from "../../src/toolsets/fs/walk.ts";
import { collectorConfig, walkRequest } from "./support.ts";

let tree: string;
/** A whole second a few days ago; files sit around it, some within the same second. */
const base = Math.floor(Date.now() / 1000) - 3 * 86_400;
/**
 * A paging start after every change the tree sees (a week after `base`, days from now): set from
 * `Date.now()` when this module loads, it raced the files created after it, whose ctime the
 * kernel's coarse clock can put on either side of it.
 */
const AFTER_EVERY_CHANGE = (base + 7 * 86_400) * 1000;

beforeAll(() => {
  tree = mkdtempSync(join(tmpdir(), "mcpkit-fs-raw-"));
  for (let d = 0; d < 4; d++) {
    const directory = join(tree, `d${d}`);
    mkdirSync(directory);
    for (let f = 0; f < 60; f++) {
      const file = join(directory, `f${f}${f % 7 === 0 ? "-é" : ""}.txt`);
      writeFileSync(file, "x".repeat(f));
      // Fractions of a second on both sides of `base + 0.5`, and whole hours away from it.
      const seconds = f % 3 === 0 ? base + (f % 10) / 10 : base + (f - 30) * 3600 + d * 0.25;
      utimesSync(file, seconds, seconds);
    }
    symlinkSync(join(directory, "f1.txt"), join(directory, "link"));
  }
  // Before 1970, off a whole second: the signed seconds and the nanoseconds must both be read right.
  const early = join(tree, "d0", "before-1970.txt");
  writeFileSync(early, "");
  utimesSync(early, new Date(-1500), new Date(-1500));
});
afterAll(() => rmSync(tree, { recursive: true, force: true }));

/** `stat` as the collector sees it without the flat loop: the accessor path, same statx underneath. */
function withoutRaw(stat: EntryStat): EntryStat {
  return {
    atPointer: (fd, pointer) => stat.atPointer(fd, pointer),
    byName: (fd, prefix, name) => stat.byName(fd, prefix, name),
    type: () => stat.type(),
    size: () => stat.size(),
    mtimeMs: () => stat.mtimeMs(),
    birthtimeMs: () => stat.birthtimeMs(),
    ctimeMs: () => stat.ctimeMs(),
  };
}

async function collect(config: CollectorConfig, stat: EntryStat): Promise<Collected> {
  const collector = createCollector(config, stat);
  await walk(
    walkRequest(tree, {
      access: directoryAccess(),
      includeDirectories: true,
      accept: (directory, relative, batch) => collector.add(directory.fd, directory.prefix, relative, batch),
    }),
  );
  return collector.result();
}

const sorted = (collected: Collected) => ({
  ...collected,
  kept: [...collected.kept].sort((a, b) => (a.path < b.path ? -1 : 1)),
});

// Where statx works through bun:ffi (Linux with glibc) the walk lists raw and the flat loop must be there.
const describeStatx = statxEntryStat() ? describe : describe.skip;
/** Whether this file system records birth times (some tmpfs, overlayfs and NFS setups do not). */
const birthTimes = statSync(tmpdir()).birthtimeMs > 0;
if (!birthTimes)
  console.log(
    "raw-stat: the temp directory's file system records no birth times; the created-time cases only compare the two paths",
  );

describeStatx("raw listings with statx (glibc)", () => {
  const middle = (base + 0.5) * 1000;
  const configs: [string, Partial<CollectorConfig>][] = [
    ["modified, from within a second", { from: middle }],
    ["modified, from and to within seconds", { from: middle - 3600_000, to: middle + 0.1 }],
    ["modified, no range, oldest first (one before 1970)", { sort: "time_asc" }],
    ["modified, to on a whole second", { from: middle - 40 * 3600_000, to: (base + 1) * 1000 }],
    ["modified, by path", { sort: "path_asc", from: middle - 20 * 3600_000 }],
    ["created", { timeField: "created", from: Date.now() - 3600_000 }],
    ["created, unknown times included", { timeField: "created", includeUnknownTime: true }],
    [
      "modified, resumed after a position",
      {
        from: middle - 40 * 3600_000,
        resume: { position: { time: middle, path: "d1/f3.txt" }, since: AFTER_EVERY_CHANGE },
      },
    ],
    [
      "modified, resumed, every entry changed since paging began",
      { from: middle - 40 * 3600_000, resume: { position: { time: middle, path: "d1/f3.txt" }, since: base * 1000 } },
    ],
    [
      "modified, oldest first, resumed",
      { sort: "time_asc", resume: { position: { time: middle, path: "d2/f9.txt" }, since: AFTER_EVERY_CHANGE } },
    ],
  ];
  const config = collectorConfig({ limit: 17 });
  for (const [label, overrides] of configs) {
    test(`${label}: the flat loop ranks what the accessors rank`, async () => {
      const flat = await collect({ ...config, ...overrides }, entryStat());
      const accessors = await collect({ ...config, ...overrides }, withoutRaw(entryStat()));
      expect(sorted(flat)).toEqual(sorted(accessors));
      // Not vacuous: entries qualified, except where every entry changed after paging began.
      if (overrides.resume?.since === base * 1000) expect(flat.offered).toBe(0);
      else if (overrides.timeField !== "created" || birthTimes) expect(flat.offered).toBeGreaterThan(0);
    });
  }

  test("a raw listing is stat'ed through the flat loop, one statx call per entry", async () => {
    const stat = entryStat();
    const inner = stat.raw;
    if (!inner) throw new Error("no raw statx");
    let calls = 0;
    const spied: EntryStat = {
      ...withoutRaw(stat),
      atPointer: () => {
        throw new Error("the accessor path was taken");
      },
      raw: {
        ...inner,
        call: (...args) => {
          calls++;
          return inner.call(...args);
        },
      },
    };
    const collected = await collect({ ...config, from: null }, spied);
    // 4 directories of 60 files each, the file from before 1970, and the 4 directories themselves; the links are not stat'ed.
    expect(calls).toBe(4 * 60 + 1 + 4);
    expect(collected.offered).toBe(4 * 60 + 1 + 4);
  });
});
