/**
 * The stat worker thread's program (see `stat-worker.ts`): one collector per job, fed parcels of
 * directory entries and whole subtrees to walk, counting finished messages in shared memory so
 * the main thread can tell how far behind it is (and when their directories may be closed)
 * without waiting for a message.
 *
 * Messages are handled strictly one after another, a subtree's walk included (it pauses for the
 * event loop now and then): the main thread releases directories in the order it posted them, so
 * a message must never finish before an earlier one.
 */
import { type Collector, createCollector } from "./collector.ts";
import { directoryAccess } from "./directories.ts";
import { entryStat } from "./entry-stat.ts";
import type { GlobMatcher } from "./glob.ts";
import { libc } from "./libc.ts";
import { ParcelDirectory, type ParcelMessage } from "./parcel.ts";
import {
  FINISHED,
  READY,
  type SubtreeOutcome,
  type SubtreeSettings,
  type WorkerMessage,
  type WorkerReply,
} from "./stat-worker.ts";
import { walk } from "./walk.ts";

declare const self: Worker;

interface Job {
  collector: Collector;
  walk: SubtreeSettings | undefined;
  glob: GlobMatcher | undefined;
  /** 1 once the search is cancelled or out of time (set by the main thread). */
  cancelled: Int32Array;
  /** `performance.now()` of this thread at which the call's budget runs out. */
  deadline: number;
  walked: SubtreeOutcome;
}

const jobs = new Map<number, Job>();
let shared: Int32Array | undefined;
/** Where a parcel's raw names are placed to be stat'ed by pointer (grown for a larger parcel). */
let names = new Uint8Array(64 * 1024);
let namesPointer = libc()?.pointer(names) ?? 0;
const directory = new ParcelDirectory();

function statParcel(collector: Collector, parcel: ParcelMessage): void {
  if (parcel.bytes.length > names.length) {
    names = new Uint8Array(parcel.bytes.length * 2);
    namesPointer = libc()?.pointer(names) ?? 0;
  }
  names.set(parcel.bytes);
  let firstName = 0;
  for (let index = 0; index < parcel.fds.length; index++) {
    directory.select(parcel, index, names, namesPointer, firstName);
    if (directory.pointer === 0) firstName += directory.count;
    collector.add(parcel.fds[index], parcel.directoryPrefixes[index], parcel.relativePrefixes[index], directory);
  }
}

async function beginJob(message: Extract<WorkerMessage, { type: "begin" }>): Promise<Job> {
  // fast-glob loads only for a job with a glob: the thread starts quicker and smaller without it.
  const compiled =
    message.walk?.glob === undefined ? undefined : (await import("./glob.ts")).compileGlob(message.walk.glob);
  return {
    collector: createCollector(message.config, entryStat()),
    walk: message.walk,
    // The main thread compiled the same text without complaint; a string here cannot happen.
    glob: typeof compiled === "string" ? undefined : compiled,
    cancelled: new Int32Array(message.cancel),
    deadline: performance.now() + (message.walk?.remainingMs ?? 0),
    walked: {
      scannedFiles: 0,
      scannedDirectories: 0,
      unreadableDirectories: 0,
      depthLimited: false,
      budgetExhausted: false,
      cancelled: false,
    },
  };
}

/** Walks a subtree handed over (open on the main thread, borrowed here) exactly as the search would. */
async function walkSubtree(job: Job, fd: number, relative: string, level: number): Promise<void> {
  const settings = job.walk;
  if (!settings) return;
  const access = directoryAccess();
  const { cancelled } = job;
  const outcome = await walk({
    root: "",
    start: "",
    access,
    startAt: { directory: access.borrow(fd), relative, level },
    maxDepth: settings.maxDepth,
    maxDepthIsServerLimit: settings.maxDepthIsServerLimit,
    glob: job.glob,
    includeFiles: settings.includeFiles,
    includeDirectories: settings.includeDirectories,
    deadline: job.deadline,
    // Read through shared memory: a cancel message would wait behind this very walk.
    signal: {
      get aborted() {
        return Atomics.load(cancelled, 0) === 1;
      },
    } as AbortSignal,
    accept: (open, relativePrefix, batch) =>
      job.collector.add(open.fd, open.prefix, settings.prefix + relativePrefix, batch),
  });
  const walked = job.walked;
  walked.scannedFiles += outcome.scannedFiles;
  walked.scannedDirectories += outcome.scannedDirectories;
  walked.unreadableDirectories += outcome.unreadableDirectories;
  walked.depthLimited ||= outcome.depthLimited;
  walked.budgetExhausted ||= outcome.budgetExhausted;
  walked.cancelled ||= outcome.cancelled;
}

async function handle(data: WorkerMessage): Promise<void> {
  if (data.type === "init") {
    entryStat(); // probes statx now rather than in the first parcel
    shared = new Int32Array(data.shared);
    Atomics.store(shared, READY, 1);
  } else if (data.type === "begin") jobs.set(data.job, await beginJob(data));
  else if (data.type === "parcel" || data.type === "subtree") {
    try {
      const job = jobs.get(data.job);
      if (job && data.type === "parcel") statParcel(job.collector, data.parcel);
      else if (job && data.type === "subtree") await walkSubtree(job, data.fd, data.relative, data.level);
    } finally {
      if (shared) Atomics.add(shared, FINISHED, 1);
    }
  } else if (data.type === "end") {
    const job = jobs.get(data.job);
    jobs.delete(data.job);
    const result = job ? { collected: job.collector.result(), walked: job.walked } : null;
    self.postMessage({ type: "result", job: data.job, result } satisfies WorkerReply);
  }
}

const queue: WorkerMessage[] = [];
let draining = false;

self.onmessage = ({ data }: MessageEvent<WorkerMessage>) => {
  queue.push(data);
  if (!draining) void drain();
};

async function drain(): Promise<void> {
  draining = true;
  try {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await handle(next);
      } catch {
        // A message that failed still counted as finished (above); the job's result says what was collected.
      }
    }
  } finally {
    draining = false;
  }
}
