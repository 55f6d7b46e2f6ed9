/**
 * The one receiver of a walk's batches (as fd's `scan()` feeds one receiver): every batch is
 * stat'ed and ranked here, on this thread or, once a long walk has the worker thread ready, by
 * the worker (`stat-worker.ts`). The walk only decides which entries are wanted; which thread
 * stats them, and how long their directories must stay open for it, is settled here and in the
 * worker's job, so a walk rule never deals with descriptors in flight.
 */
import {
  type Collected,
  type CollectorConfig,
  createCollector,
  type KeptBound,
  type StatedBatch,
} from "./collector.ts";
import type { DirectoryHandle } from "./directories.ts";
import { entryStat } from "./entry-stat.ts";
import type { EntryBatch } from "./listing.ts";
import type { StatJob, StatWorker } from "./stat-worker.ts";

/**
 * A walk still running after this long shares its stat calls with the worker thread once it is
 * ready; so does one that has offered this many entries when the thread was started with a
 * one-shot search's process (`stat-thread.ts`), whose first entries, still interpreted, cost
 * microseconds each. In a server both threads are warm, and a search shorter than that stays on
 * its own thread instead of paying for parcels and a round trip.
 */
const WORKER_AFTER_MS = 3;
const WORKER_AFTER_ENTRIES = 128;
/**
 * Batches smaller than this are stat'ed where they are, worker or not: handing one over (a copy
 * into a parcel, and often a message of its own to an idle worker, about 20 µs of this thread)
 * costs more than its few stat calls (about 1.5 µs each). A glob's batches are mostly that small
 * (the few names in a directory that match): in a node_modules-heavy project, a glob for every
 * `.ts` file took 388–397 ms handing them over and 278–304 ms keeping them (`fs-search.ts
 * --project`). The 200k tree's 200-entry batches are unaffected, and small directories without a
 * glob lose nothing (215 vs 220 ms; a threshold of 16 or 32 cost them 10–14%).
 */
export const WORKER_MIN_BATCH = 8;

export interface StatSink {
  /** The walk's `accept`: stats and ranks one batch (here or in the worker). */
  accept(directory: DirectoryHandle, relativePrefix: string, batch: EntryBatch): void;
  /** Ranks entries stat'ed already (the native walk's records), on this thread. */
  acceptStated(batch: StatedBatch): void;
  /** This thread's `Collector.keptBound` (the worker's share can only raise it). */
  keptBound(): KeptBound | undefined;
  addBehind(count: number): void;
  /**
   * Waits for the worker's share and returns everything ranked, merged; undefined when the worker
   * stopped mid-job. Call it also after a failed walk: the worker's batches hold their directories
   * open until it has finished them.
   */
  join(): Promise<Collected | undefined>;
  /** Batches and parcels the worker took (for the debug log). */
  readonly workerBatches: number;
  readonly workerParcels: number;
}

/**
 * A sink for one search. `startPrefix` is prepended to every relative path (the start directory
 * below the root); `statWorker` is undefined for walks that stay on this thread.
 */
export function openStatSink(
  config: CollectorConfig,
  startPrefix: string,
  statWorker: StatWorker | undefined,
): StatSink {
  // Loading the thread takes longer than a small walk: start it now, the walk goes on meanwhile.
  statWorker?.warm();
  const local = createCollector(config, entryStat());
  const opened = performance.now();
  let job: StatJob | undefined;
  let entries = 0;
  return {
    accept(directory, relativePrefix, batch) {
      // Small searches stay on this thread; a long one shares the stat calls with the worker
      // once the thread is ready (it starts on the first long search and stays for the process).
      if (
        !job &&
        statWorker &&
        (((entries += batch.count) >= WORKER_AFTER_ENTRIES && statWorker.startedEarly) ||
          performance.now() - opened >= WORKER_AFTER_MS)
      )
        job = statWorker.begin(config);
      if (job && batch.count >= WORKER_MIN_BATCH && job.hasRoom(1))
        job.post(directory, startPrefix + relativePrefix, batch);
      else local.add(directory.fd, directory.prefix, startPrefix + relativePrefix, batch);
    },
    acceptStated(batch) {
      local.addStated(batch);
    },
    keptBound: () => local.keptBound(),
    addBehind(count) {
      local.addBehind(count);
    },
    async join() {
      if (!job) return local.result();
      const remote = await job.finish();
      if (!remote) return undefined;
      local.merge(remote);
      return local.result();
    },
    get workerBatches() {
      return job?.batches ?? 0;
    },
    get workerParcels() {
      return job?.parcels ?? 0;
    },
  };
}
