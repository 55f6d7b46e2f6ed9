/**
 * A second thread for the stat calls, which dominate a large search (one statx per entry, about
 * 80% of a search's time; `scripts/bench/fs-phases.ts`).
 *
 * The main thread walks and lists directories; while the worker has at most one parcel queued it
 * hands batches over (packed into parcels, `parcel.ts`), otherwise it stats them itself, so both
 * threads stay busy to the end. Both sides use `collector.ts`, so they filter and rank
 * identically; the worker keeps its own bounded top-k per job and returns it at the end, so memory
 * stays bounded by `limit` on both sides. A batch keeps its directory open
 * (`DirectoryHandle.retain`) until the worker has finished its parcel.
 *
 * The thread is its own module, `stat-worker-thread.ts`; `bun build --compile` embeds it only when
 * it is named as an extra entry point (`bun build src/main.ts src/toolsets/fs/stat-worker-thread.ts
 * --compile …`), as `toolsets/fs/stat-worker-thread.js` below the entry points' common folder
 * (`src/`; see `stat-thread.ts`). A search starts the thread (`warm`), unless a one-shot `mcpkit
 * call` already did (`prestartStatThread`); until it is ready, the search stats on the main
 * thread, so a thread that cannot load only costs speed, never a result.
 */
import type { Collected, CollectorConfig } from "./collector.ts";
import type { DirectoryHandle } from "./directories.ts";
import type { EntryBatch } from "./listing.ts";
import { ParcelBuilder, type ParcelMessage } from "./parcel.ts";
import { type StatThread, startStatThread, takePrestartedStatThread } from "./stat-thread.ts";

/** Entries per parcel (one message) once the worker has work queued; an idle worker gets what there is. */
const PARCEL_ENTRIES = 1024;
/**
 * Directories per parcel at most: each stays open until the worker has finished its parcel, and
 * at most three parcels are in flight (two queued, one filling), so a search holds O(depth) + 48
 * descriptors whatever the tree's shape (many small directories included).
 */
const PARCEL_DIRECTORIES = 16;

export type WorkerMessage =
  | { type: "init"; shared: SharedArrayBuffer }
  | { type: "begin"; job: number; config: CollectorConfig }
  | { type: "parcel"; job: number; parcel: ParcelMessage }
  | { type: "end"; job: number };

export type WorkerReply = { type: "result"; job: number; result: Collected | null };

/**
 * The shared counters (Int32Array slots): parcels finished, and 1 once the thread is ready. Both
 * are read without the event loop, which the walk leaves only every few milliseconds.
 */
export const FINISHED = 0;
export const READY = 1;

export interface StatJob {
  /** Whether the worker has at most `depth` parcels waiting; read without the event loop. */
  hasRoom(depth: number): boolean;
  /**
   * Hands a copy of `batch` over (in the next parcel); the directory stays open until the worker
   * has finished it.
   */
  post(directory: DirectoryHandle, relativePrefix: string, batch: EntryBatch): void;
  /** Batches and parcels handed over so far (for the debug log). */
  readonly batches: number;
  readonly parcels: number;
  /** Ends the job and returns what the worker collected (null when the worker died). */
  finish(): Promise<Collected | null>;
}

export class StatWorker {
  private worker: Worker | undefined;
  private unavailable = false;
  /** Counters shared with the current thread; a new thread gets new ones (a terminated one may still write). */
  private shared = new Int32Array(new SharedArrayBuffer(8));
  private posted = 0;
  private nextJob = 1;
  private running = 0;
  private readonly waiting = new Map<number, (result: Collected | null) => void>();
  /** Directories of each posted parcel the worker has not finished, oldest first (it works in order). */
  private readonly inFlight: DirectoryHandle[][] = [];
  private released = 0;
  /**
   * The thread was started with the process for a one-shot search (`stat-thread.ts`): its walk's
   * first entries run interpreted, at microseconds each, so it hands them over at once.
   */
  startedEarly = false;

  /** `moduleUrl`: the thread's program, where not the bundled one (tests give one that cannot load). */
  constructor(private readonly moduleUrl?: string) {}

  /**
   * Starts the thread if it is not running: loading it takes longer (about 15 ms) than a small
   * walk, so a search that may be long calls this first and the walk goes on meanwhile.
   */
  warm(): void {
    this.start();
  }

  /** Starts the thread if needed and resolves once it takes jobs: true, or false when it cannot run here. */
  async whenReady(): Promise<boolean> {
    const worker = this.start();
    while (worker && this.worker === worker) {
      const shared = this.shared;
      if (Atomics.load(shared, READY) === 1) return true;
      // The thread notifies once ready; close() notifies too, so a thread that failed to load ends the wait.
      await Atomics.waitAsync(shared, READY, 0).value;
    }
    return false;
  }

  /** Starts a job, or returns undefined while the thread is not ready or cannot run here (then the caller stats alone). */
  begin(config: CollectorConfig): StatJob | undefined {
    const worker = this.start();
    if (!worker || Atomics.load(this.shared, READY) !== 1) return undefined;
    const job = this.nextJob++;
    // Referenced only while a job runs: an idle worker must not keep the process alive.
    if (this.running++ === 0) worker.ref();
    this.send(worker, { type: "begin", job, config });
    let batches = 0;
    let parcels = 0;
    const builder = new ParcelBuilder();
    let directories: DirectoryHandle[] = [];
    const flush = () => {
      if (builder.entries === 0) return;
      this.inFlight.push(directories);
      directories = [];
      this.posted++;
      parcels++;
      const { message, transfer } = builder.take();
      worker.postMessage({ type: "parcel", job, parcel: message } satisfies WorkerMessage, transfer);
    };
    return {
      get batches() {
        return batches;
      },
      get parcels() {
        return parcels;
      },
      hasRoom: (depth) => {
        // A worker that died (or was closed) mid-job takes nothing more: the caller stats alone.
        if (this.worker !== worker) return false;
        this.releaseFinished();
        return this.posted - Atomics.load(this.shared, FINISHED) <= depth;
      },
      post: (directory, relativePrefix, batch) => {
        directory.retain();
        directories.push(directory);
        batches++;
        builder.add(directory.fd, directory.prefix, relativePrefix, batch);
        // Small parcels while the worker waits for work, full ones while it is busy.
        if (
          builder.entries >= PARCEL_ENTRIES ||
          directories.length >= PARCEL_DIRECTORIES ||
          this.posted === Atomics.load(this.shared, FINISHED)
        )
          flush();
      },
      finish: () =>
        new Promise((resolve) => {
          // Nothing would ever answer a terminated worker; `close` already settled what it could.
          if (this.worker !== worker) {
            for (const directory of directories.splice(0)) directory.release();
            return resolve(null);
          }
          flush();
          this.waiting.set(job, (result) => {
            this.releaseFinished();
            resolve(result);
          });
          this.send(worker, { type: "end", job });
        }),
    };
  }

  close(): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const resolve of this.waiting.values()) resolve(null);
    this.waiting.clear();
    this.running = 0;
    // The thread is gone, so nothing uses these directories any more.
    for (const parcel of this.inFlight.splice(0)) for (const directory of parcel) directory.release();
    this.released = this.posted = 0;
    Atomics.notify(this.shared, READY);
    this.shared = new Int32Array(new SharedArrayBuffer(8));
  }

  /** Gives back the directories of the parcels the worker has finished. */
  private releaseFinished(): void {
    const finished = Atomics.load(this.shared, FINISHED);
    while (this.released < finished && this.inFlight.length > 0) {
      for (const directory of this.inFlight.shift() as DirectoryHandle[]) directory.release();
      this.released++;
    }
  }

  private send(worker: Worker, message: WorkerMessage): void {
    worker.postMessage(message);
  }

  private start(): Worker | undefined {
    if (this.worker || this.unavailable) return this.worker;
    let thread: StatThread;
    try {
      const early = this.moduleUrl === undefined ? takePrestartedStatThread() : undefined;
      this.startedEarly = early !== undefined;
      thread = early ?? startStatThread(this.moduleUrl);
    } catch {
      this.unavailable = true;
      return undefined;
    }
    const { worker } = thread;
    if (thread.failed) {
      worker.terminate();
      this.unavailable = true;
      return undefined;
    }
    worker.onmessage = ({ data }: MessageEvent<WorkerReply>) => {
      const resolve = this.waiting.get(data.job);
      this.waiting.delete(data.job);
      resolve?.(data.result);
      if (--this.running === 0) worker.unref();
    };
    worker.onerror = () => {
      this.close();
      this.unavailable = true; // e.g. a build without the thread's entry point: stat on this thread
    };
    this.shared = thread.shared;
    this.worker = worker;
    return worker;
  }
}
