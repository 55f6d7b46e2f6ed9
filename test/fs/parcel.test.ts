/**
 * How walked entries reach the stat worker: batches packed into parcels (raw names copied as
 * bytes, readdir names as strings) must come out the other side as the same entries, and the real
 * worker thread must rank exactly what the calling thread ranks alone.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Collected, type CollectorConfig, createCollector } from "../../src/toolsets/fs/collector.ts";
import { type DirectoryAccess, directoryAccess, pathAccess } from "../../src/toolsets/fs/directories.ts";
import { entryStat } from "../../src/toolsets/fs/entry-stat.ts";
import { ParcelBuilder, ParcelDirectory } from "../../src/toolsets/fs/parcel.ts";
import { type StatJob, StatWorker } from "../../src/toolsets/fs/stat-worker.ts";
import { type WalkRequest, walk } from "../../src/toolsets/fs/walk.ts";
import { largeTreeDir } from "../support/scratch.ts";
import { collectorConfig, namesOf, walkRequest } from "./support.ts";

let tree: string;
const DIRECTORIES = 12;
const FILES = 150;

// Trees in memory where they can be (test/support/scratch.ts): on a disk other work keeps busy,
// making a few thousand entries took longer than the tests that read them.
beforeAll(() => {
  tree = largeTreeDir("mcpkit-fs-parcel-");
  const now = Date.now() / 1000;
  for (let d = 0; d < DIRECTORIES; d++) {
    const directory = join(tree, `dir ${d} é`, `sub${d % 3}`);
    mkdirSync(directory, { recursive: true });
    for (let f = 0; f < FILES; f++) {
      // Names of varied lengths, some non-ASCII, so byte ranges and offsets are exercised.
      const file = join(directory, `${"x".repeat(f % 17)}file-${f}${f % 5 === 0 ? "-日本" : ""}.txt`);
      writeFileSync(file, "a".repeat(f));
      utimesSync(file, now - f * 3600, now - (d * FILES + f) * 60);
    }
  }
});
afterAll(() => rmSync(tree, { recursive: true, force: true }));

const config = collectorConfig({ from: Date.now() - 40 * 3600_000, limit: 25 });

/** A walk of the test tree (directories included) through `access`, handing batches to `accept`. */
const treeWalk = (access: DirectoryAccess, accept: WalkRequest["accept"]) =>
  walkRequest(tree, { access, includeDirectories: true, accept });

for (const [label, access] of [
  ["raw listings", directoryAccess()],
  ["readdir listings", pathAccess()],
] as const) {
  test(`${label}: a parcel carries every batch's names and kinds unchanged`, async () => {
    const sent: { relative: string; names: string[]; directories: boolean[] }[] = [];
    const builder = new ParcelBuilder();
    await walk(
      treeWalk(access, (directory, relative, batch) => {
        sent.push({
          relative,
          names: namesOf(batch),
          directories: Array.from({ length: batch.count }, (_, i) => batch.isDirectory(i)),
        });
        builder.add(directory.fd, directory.prefix, relative, batch);
      }),
    );
    expect(sent.reduce((sum, batch) => sum + batch.names.length, 0)).toBe(DIRECTORIES * FILES + DIRECTORIES * 2);
    const { message, transfer } = builder.take();
    expect(transfer.length).toBe(5);
    const received: typeof sent = [];
    const view = new ParcelDirectory();
    let firstName = 0;
    for (let index = 0; index < message.fds.length; index++) {
      view.select(message, index, message.bytes, 1, firstName);
      if (access.kind === "descriptor" && directoryAccess().kind === "descriptor" && label === "raw listings")
        expect(view.pointer).toBe(1);
      if (view.pointer === 0) firstName += view.count;
      received.push({
        relative: message.relativePrefixes[index],
        names: Array.from({ length: view.count }, (_, i) => view.name(i)),
        directories: Array.from({ length: view.count }, (_, i) => view.isDirectory(i)),
      });
    }
    expect(received).toEqual(sent);
    expect(builder.entries).toBe(0);
  });
}

/** Starts the worker thread and, once it is ready, its first job. */
async function beginWhenReady(worker: StatWorker, wanted: CollectorConfig): Promise<StatJob> {
  if (!(await worker.whenReady())) throw new Error("the stat worker did not start");
  const job = worker.begin(wanted);
  if (!job) throw new Error("the stat worker took no job once ready");
  return job;
}

function ranked(collected: Collected | null): { paths: string[]; offered: number } {
  if (!collected) throw new Error("no result");
  return {
    paths: collected.kept.map((candidate) => candidate.path).sort(),
    offered: collected.offered,
  };
}

test("the worker thread ranks exactly what this thread ranks alone", async () => {
  const alone = createCollector(config, entryStat());
  await walk(
    treeWalk(directoryAccess(), (directory, relative, batch) =>
      alone.add(directory.fd, directory.prefix, relative, batch),
    ),
  );

  const worker = new StatWorker();
  try {
    const started = await beginWhenReady(worker, config);
    await walk(treeWalk(directoryAccess(), (directory, relative, batch) => started.post(directory, relative, batch)));
    const remote = await started.finish();
    expect(started.batches).toBeGreaterThan(DIRECTORIES);
    expect(started.parcels).toBeGreaterThan(0);
    expect(started.parcels).toBeLessThanOrEqual(started.batches);
    expect(ranked(remote)).toEqual(ranked(alone.result()));
    expect(ranked(remote).paths).toHaveLength(config.limit);
  } finally {
    worker.close();
  }
  // Every directory handed over was released once the worker finished with it.
  expect(directoryAccess().openCount).toBe(0);
});

/** Runs a whole walk of `root` as a search does, with a real stat worker; returns what it kept and the most descriptors open at once. */
async function walkThroughWorker(
  root: string,
  wanted: CollectorConfig,
): Promise<{ paths: string[]; mostOpen: number }> {
  const worker = new StatWorker();
  try {
    const started = await beginWhenReady(worker, wanted);
    const local = createCollector(wanted, entryStat());
    let mostOpen = 0;
    let posted = 0;
    await walk({
      // As a search does: the worker takes batches while it has room, this thread stats the rest.
      ...treeWalk(directoryAccess(), (directory, relative, batch) => {
        if (started.hasRoom(1)) {
          started.post(directory, relative, batch);
          posted++;
        } else local.add(directory.fd, directory.prefix, relative, batch);
        mostOpen = Math.max(mostOpen, directoryAccess().openCount);
      }),
      root,
      includeDirectories: false,
    });
    const remote = await started.finish();
    if (!remote) throw new Error("the worker stopped");
    expect(posted).toBeGreaterThan(0);
    local.merge(remote);
    return { paths: ranked(local.result()).paths, mostOpen };
  } finally {
    worker.close();
  }
}

test.skipIf(directoryAccess().kind !== "descriptor")(
  "many small directories handed to the worker: descriptors stay bounded (parcels close over few directories)",
  async () => {
    const wide = largeTreeDir("mcpkit-fs-wide-");
    try {
      for (let a = 0; a < 40; a++) {
        for (let b = 0; b < 40; b++) {
          const directory = join(wide, `a${a}`, `b${b}`);
          mkdirSync(directory, { recursive: true });
          writeFileSync(join(directory, "f.txt"), "");
        }
      }
      const { paths, mostOpen } = await walkThroughWorker(wide, { ...config, from: null, limit: 2000 });
      expect(paths).toHaveLength(1600);
      // Three parcels of at most 16 directories in flight, plus the walk's own path (depth 3).
      expect(mostOpen).toBeLessThanOrEqual(3 * 16 + 8);
      expect(directoryAccess().openCount).toBe(0);
    } finally {
      rmSync(wide, { recursive: true, force: true });
    }
  },
);

test.skipIf(process.platform !== "linux")(
  "names that are not valid UTF-8 are left out, never reported as a lossy path",
  async () => {
    const odd = mkdtempSync(join(tmpdir(), "mcpkit-fs-odd-"));
    try {
      const base = Buffer.from(`${odd}/`);
      for (const bytes of [[0x61, 0xe9], [0x61, 0xe8], [0xff]])
        writeFileSync(Buffer.concat([base, Buffer.from(bytes)]), "");
      writeFileSync(join(odd, "valid-é.txt"), "");
      writeFileSync(join(odd, "replacement-\uFFFD.txt"), ""); // a real U+FFFD is valid UTF-8: kept
      const alone = createCollector({ ...config, from: null }, entryStat());
      await walk({
        ...treeWalk(directoryAccess(), (directory, relative, batch) =>
          alone.add(directory.fd, directory.prefix, relative, batch),
        ),
        root: odd,
      });
      const expected = ["replacement-\uFFFD.txt", "valid-é.txt"];
      expect(ranked(alone.result()).paths).toEqual(expected);
      expect((await walkThroughWorker(odd, { ...config, from: null })).paths).toEqual(expected);
    } finally {
      rmSync(odd, { recursive: true, force: true });
    }
  },
);

for (const [label, access] of [
  ["raw listings", directoryAccess()],
  ["readdir listings", pathAccess()],
] as const) {
  test.skipIf(process.platform !== "linux")(
    `${label}: directories whose names are not valid UTF-8 are skipped and counted, never reopened by a lossy name, on either thread (issue 18 G9)`,
    async () => {
      const odd = mkdtempSync(join(tmpdir(), "mcpkit-fs-odd-dirs-"));
      try {
        const raw = (...parts: (string | readonly number[])[]) =>
          Buffer.concat([
            Buffer.from(`${odd}/`),
            ...parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))),
          ]);
        // \xff and \xfe both decode leniently to U+FFFD, the name of a real directory beside them.
        mkdirSync(raw([0xff]));
        writeFileSync(raw([0xff], "/a.txt"), "");
        mkdirSync(raw([0xfe]));
        writeFileSync(raw([0xfe], "/b.txt"), "");
        mkdirSync(join(odd, "\uFFFD"));
        writeFileSync(join(odd, "\uFFFD", "c.txt"), "");
        mkdirSync(join(odd, "valid"));
        writeFileSync(join(odd, "valid", "d.txt"), "");
        mkdirSync(raw("valid/", [0xfd]));
        writeFileSync(raw("valid/", [0xfd], "/e.txt"), "");
        writeFileSync(raw([0x66, 0xfc], ".txt"), "");
        const wanted = { ...config, from: null, limit: 100 };
        const expected = ["valid/d.txt", "\uFFFD/c.txt"].sort();
        const walkOdd = (accept: WalkRequest["accept"]) =>
          walk({ ...treeWalk(access, accept), root: odd, includeDirectories: false });

        const alone = createCollector(wanted, entryStat());
        const inThread = await walkOdd((directory, relative, batch) =>
          alone.add(directory.fd, directory.prefix, relative, batch),
        );
        const aloneResult = alone.result();
        expect(ranked(aloneResult).paths).toEqual(expected);
        expect(inThread.undecodableDirectories).toBe(3);
        expect(aloneResult.undecodableSkipped + inThread.undecodableEntries).toBe(1); // f\xfc.txt

        const worker = new StatWorker();
        try {
          const started = await beginWhenReady(worker, wanted);
          const throughWorker = await walkOdd((directory, relative, batch) => started.post(directory, relative, batch));
          const remote = await started.finish();
          if (!remote) throw new Error("the worker stopped");
          expect(started.batches).toBeGreaterThan(0);
          expect(ranked(remote).paths).toEqual(expected);
          expect(throughWorker.undecodableDirectories).toBe(3);
          expect(remote.undecodableSkipped + throughWorker.undecodableEntries).toBe(1);
        } finally {
          worker.close();
        }
        expect(directoryAccess().openCount).toBe(0);
      } finally {
        rmSync(odd, { recursive: true, force: true });
      }
    },
  );
}
