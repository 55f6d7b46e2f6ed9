/**
 * Where the time of a file search goes, in process, on the same tree as fs-search.ts: each phase
 * adds one layer to the one before, so the differences are the cost of each layer.
 *
 *   list      the walk alone: openat + getdents64 + sorting entries (nothing stat'ed)
 *   glob      + matching each entry against `--glob` (only with --glob)
 *   stat      + one statx per entry left (names stat'ed in place), nothing filtered
 *   rank      + the time filter and the bounded top-k (the collector), one thread
 *   threads   the same through the search's stat sink, the worker thread sharing the stat calls (what a search runs)
 *
 * Warm JIT and warm cache: each phase runs once untimed, then `--rounds` interleaved rounds;
 * medians, with the CPU time (user + system, and system alone) of the process for the same rounds. The whole
 * process (start-up, output) is what fs-search.ts times against find and fd.
 *
 * `--cold` times instead each phase's first run in a fresh process (cold JIT, warm cache), as a
 * one-shot `mcpkit call` runs it: one process per phase and round, interleaved; the threads phase
 * starts its worker thread and waits for it before timing, as a one-shot call does at start-up.
 * The CPU time then includes the JIT's compiler threads, which a cold run keeps busy.
 *
 *   bun scripts/bench/fs-phases.ts [--rounds N] [--tree DIR] [--glob PATTERN] [--cold]
 *
 * e.g. `--tree /tmp/mcpkit-bench-project --glob '**\/*.ts'` for the project shape of fs-search.ts --project.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type CollectorConfig, createCollector } from "../../src/toolsets/fs/collector.ts";
import { directoryAccess } from "../../src/toolsets/fs/directories.ts";
import { entryStat } from "../../src/toolsets/fs/entry-stat.ts";
import { compileGlob, type GlobMatcher } from "../../src/toolsets/fs/glob.ts";
import type { EntryBatch } from "../../src/toolsets/fs/listing.ts";
import { openStatSink } from "../../src/toolsets/fs/stat-sink.ts";
import { StatWorker } from "../../src/toolsets/fs/stat-worker.ts";
import { type WalkRequest, walk } from "../../src/toolsets/fs/walk.ts";
import { ensureTree } from "./fs-tree.ts";

const { values: flags } = parseArgs({
  options: {
    rounds: { type: "string", default: "7" },
    tree: { type: "string" },
    glob: { type: "string" },
    cold: { type: "boolean", default: false },
    /** Internal to --cold: run this one phase once, cold, and print its times as JSON. */
    phase: { type: "string" },
  },
});
const tree = flags.tree ?? ensureTree(join("/tmp", "mcpkit-bench-200k"), 200_000);
const compiled = flags.glob === undefined ? undefined : compileGlob(flags.glob);
if (typeof compiled === "string") throw new Error(compiled);
const glob: GlobMatcher | undefined = compiled;
const rounds = Number(flags.rounds);

const config: CollectorConfig = {
  timeField: "modified",
  from: Date.now() - 30 * 86_400_000,
  to: null,
  includeUnknownTime: false,
  sort: "time_desc",
  limit: 100,
  resume: null,
};

type Accept = WalkRequest["accept"];

async function walkWith(accept: Accept, matcher: GlobMatcher | undefined = glob): Promise<number> {
  const outcome = await walk({
    root: tree,
    start: "",
    maxDepth: Number.POSITIVE_INFINITY,
    maxDepthIsServerLimit: false,
    glob: matcher,
    includeFiles: true,
    includeDirectories: false,
    deadline: performance.now() + 600_000,
    signal: new AbortController().signal,
    accept,
  });
  return outcome.scannedFiles;
}

const stat = entryStat();
const statOnly: Accept = (directory, _relative, batch: EntryBatch) => {
  for (let i = 0; i < batch.count; i++) {
    if (batch.pointer) stat.atPointer(directory.fd, batch.pointer + batch.offsets[i]);
    else stat.byName(directory.fd, directory.prefix, batch.name(i));
  }
};

const worker = new StatWorker();

/** As a search runs it: the walk feeds a stat sink that shares the stat calls with the worker thread. */
async function withWorker(): Promise<number> {
  const sink = openStatSink(config, "", worker);
  const files = await walkWith((directory, relative, batch) => sink.accept(directory, relative, batch));
  if (!(await sink.join())) throw new Error("the stat worker stopped");
  return files;
}

const phases: Record<string, () => Promise<number>> = {
  list: () => walkWith(() => {}, undefined),
  ...(glob ? { glob: () => walkWith(() => {}) } : {}),
  stat: () => walkWith(statOnly),
  rank: () => {
    const collector = createCollector(config, stat);
    return walkWith((directory, relative, batch) => collector.add(directory.fd, directory.prefix, relative, batch));
  },
  threads: withWorker,
};

interface Timing {
  wall: number;
  cpu: number;
  system: number;
  files: number;
}

/** One run of `phase` in this process, with its wall and CPU time. */
async function timeOnce(phase: () => Promise<number>): Promise<Timing> {
  const usage = process.cpuUsage();
  const started = performance.now();
  const files = await phase();
  const wall = performance.now() - started;
  const used = process.cpuUsage(usage);
  return { wall, cpu: (used.user + used.system) / 1000, system: used.system / 1000, files };
}

if (flags.phase !== undefined) {
  const phase = phases[flags.phase];
  if (!phase) throw new Error(`no phase ${flags.phase}`);
  if (flags.phase === "threads") {
    // Started and ready before the clock starts, as `mcpkit call` starts it with the process.
    worker.warm();
    for (let tries = 0; tries < 500; tries++) {
      const job = worker.begin(config);
      if (job) {
        await job.finish();
        break;
      }
      await Bun.sleep(2);
    }
  }
  process.stdout.write(`${JSON.stringify(await timeOnce(phase))}\n`);
  process.exit(0);
}

const wall: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
const system: Record<string, number[]> = {};
if (flags.cold) {
  const names = Object.keys(phases);
  const passOn = [...(flags.tree ? ["--tree", tree] : []), ...(flags.glob ? ["--glob", flags.glob] : [])];
  for (let round = 0; round < rounds; round++) {
    for (const name of names.map((_, i) => names[(i + round) % names.length])) {
      const child = Bun.spawnSync([process.execPath, import.meta.path, "--phase", name, ...passOn], {
        stderr: "inherit",
      });
      const timing = JSON.parse(child.stdout.toString()) as Timing;
      (wall[name] ??= []).push(timing.wall);
      (cpu[name] ??= []).push(timing.cpu);
      (system[name] ??= []).push(timing.system);
    }
  }
  printTable(`cold first runs (one process each), median of ${rounds} rounds`);
  process.exit(0);
}
const walkedFiles = await phases.list();
for (const phase of Object.values(phases)) await phase();
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(phases);
  for (const name of names.map((_, i) => names[(i + round) % names.length])) {
    const usage = process.cpuUsage();
    const started = performance.now();
    const files = await phases[name]();
    (wall[name] ??= []).push(performance.now() - started);
    const used = process.cpuUsage(usage);
    (cpu[name] ??= []).push((used.user + used.system) / 1000);
    (system[name] ??= []).push(used.system / 1000);
    if (files !== walkedFiles) throw new Error(`${name}: ${files} files walked, not ${walkedFiles}`);
  }
}
worker.close();
printTable(`${walkedFiles} files, warm, median of ${rounds} rounds`);

function printTable(what: string): void {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  console.log(
    `fs search phases on ${tree}${flags.glob ? ` with glob ${flags.glob}` : ""} (${directoryAccess().kind} walk), ${what}`,
  );
  console.log(
    `${"phase".padEnd(10)} ${"wall ms".padStart(8)} ${"+ms".padStart(6)} ${"cpu ms".padStart(8)} ${"of it system".padStart(13)}`,
  );
  let previous = 0;
  for (const name of Object.keys(phases)) {
    const ms = median(wall[name]);
    const added = name === "threads" ? "" : (ms - previous).toFixed(0);
    console.log(
      `${name.padEnd(10)} ${ms.toFixed(0).padStart(8)} ${added.padStart(6)} ${median(cpu[name]).toFixed(0).padStart(8)} ${median(system[name]).toFixed(0).padStart(13)}`,
    );
    if (name !== "threads") previous = ms;
  }
}
