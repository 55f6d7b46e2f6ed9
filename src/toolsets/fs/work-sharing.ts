/**
 * How one search shares its work with the stat worker thread (`stat-worker.ts`). While the
 * worker has at most one message queued it gets the next directory's whole subtree to walk
 * (listing included, so a tree of many small directories is listed by both threads), or, for
 * directories near the start, batches of entries to stat; otherwise this thread does the work
 * itself. Either way both threads stay busy to the end of the walk, and the results are merged
 * as if one thread had done it all.
 *
 * Small searches never start a job: only a walk still running after WORKER_AFTER_MS does.
 */
import type { Collector, CollectorConfig } from "./collector.ts";
import type { DirectoryHandle } from "./directories.ts";
import type { EntryBatch } from "./listing.ts";
import type { StatJob, StatWorker, SubtreeSettings } from "./stat-worker.ts";
import type { WalkOutcome } from "./walk.ts";

/** A walk still running after this long shares its work with the worker thread. */
const WORKER_AFTER_MS = 3;
/**
 * Subtrees are handed over from this depth on: a directory right below the start may hold
 * nearly the whole tree (a project's node_modules), which would leave this thread idle.
 */
const SUBTREES_FROM_LEVEL = 2;

export class WorkSharing {
  private job: StatJob | undefined;
  private readonly started = performance.now();

  constructor(
    private readonly statWorker: StatWorker | undefined,
    private readonly config: CollectorConfig,
    /** Undefined when subtrees cannot be handed over (a walk by path has no descriptors). */
    private readonly subtrees: SubtreeSettings | undefined,
    private readonly local: Collector,
    /** The search's start path and "/", put before the walk's relative paths. */
    private readonly prefix: string,
    /** `performance.now()` at which the call's budget runs out. */
    private readonly deadline: number,
  ) {}

  /** The walk's `accept`: a batch to stat, here or in the worker. */
  accept(directory: DirectoryHandle, relativePrefix: string, batch: EntryBatch): void {
    const job = this.currentJob();
    if (job?.hasRoom(1)) job.post(directory, this.prefix + relativePrefix, batch);
    else this.local.add(directory.fd, directory.prefix, this.prefix + relativePrefix, batch);
  }

  /** The walk's `delegate`: true when the worker takes the directory's whole subtree. */
  delegate(directory: DirectoryHandle, relative: string, level: number): boolean {
    if (!this.subtrees || level < SUBTREES_FROM_LEVEL) return false;
    const job = this.currentJob();
    if (!job?.hasRoom(0)) return false;
    job.postSubtree(directory, relative, level);
    return true;
  }

  /**
   * Waits for the worker (its messages hold directories open until it is done) and adds what it
   * found to `outcome` and the local collector. `outcome` is undefined when the walk failed.
   */
  async finish(outcome: WalkOutcome | undefined): Promise<void> {
    const job = this.job;
    if (!job) return;
    if (!outcome || outcome.cancelled || outcome.budgetExhausted) job.cancel();
    const remote = await job.finish();
    if (!outcome) return;
    if (!remote) throw new Error("the stat worker stopped unexpectedly");
    this.local.merge(remote.collected);
    const { walked } = remote;
    outcome.scannedFiles += walked.scannedFiles;
    outcome.scannedDirectories += walked.scannedDirectories;
    outcome.unreadableDirectories += walked.unreadableDirectories;
    outcome.depthLimited ||= walked.depthLimited;
    outcome.budgetExhausted ||= walked.budgetExhausted;
    outcome.cancelled ||= walked.cancelled;
  }

  /** For the debug log. */
  get handedOver(): { batches: number; subtrees: number; parcels: number } {
    const job = this.job;
    return { batches: job?.batches ?? 0, subtrees: job?.subtrees ?? 0, parcels: job?.parcels ?? 0 };
  }

  private currentJob(): StatJob | undefined {
    if (!this.job && this.statWorker && performance.now() - this.started >= WORKER_AFTER_MS) {
      const remainingMs = this.deadline - performance.now();
      this.job = this.statWorker.begin(this.config, this.subtrees && { ...this.subtrees, remainingMs });
    }
    return this.job;
  }
}
