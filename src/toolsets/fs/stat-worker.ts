/**
 * A second thread for the stat calls, which dominate a large search (one lstat per entry).
 *
 * The main thread walks and lists directories; while the worker keeps up it hands whole
 * directory listings over, otherwise it stats them itself. The worker's program is the source of
 * `collectorProgram`, so both sides filter and rank identically; it keeps its own bounded top-k
 * per job and returns it at the end, so memory stays bounded by `limit` on both sides.
 * A blob worker is used because `bun build --compile` only embeds extra worker files when they are
 * named as build entry points.
 */
import type { Collected, CollectorConfig } from "./collector.ts";
import { collectorProgram } from "./collector.ts";

const WORKER_SOURCE = `
const { lstatSync } = require("node:fs");
const program = (${collectorProgram.toString()})(lstatSync);
const jobs = new Map();
let done;
self.onmessage = ({ data }) => {
  if (data.type === "init") done = new Int32Array(data.shared);
  else if (data.type === "begin") jobs.set(data.job, program.createCollector(data.config));
  else if (data.type === "batch") {
    jobs.get(data.job)?.add(data.absolutePrefix, data.relativePrefix, data.names, data.directories);
    Atomics.add(done, 0, 1);
  } else if (data.type === "end") {
    const collector = jobs.get(data.job);
    jobs.delete(data.job);
    postMessage({ job: data.job, result: collector ? collector.result() : null });
  }
};
`;

export interface StatJob {
  /** Whether the worker has at most `depth` batches waiting; read without the event loop. */
  hasRoom(depth: number): boolean;
  post(absolutePrefix: string, relativePrefix: string, names: string[], directories: boolean[]): void;
  /** Batches handed over so far (for the debug log). */
  readonly batches: number;
  /** Ends the job and returns what the worker collected. */
  finish(): Promise<Collected | null>;
}

export class StatWorker {
  private worker: Worker | undefined;
  private unavailable = false;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private posted = 0;
  private nextJob = 1;
  private running = 0;
  private readonly waiting = new Map<number, (result: Collected | null) => void>();

  /** Starts a job, or returns undefined when no worker can run here (then the caller stats alone). */
  begin(config: CollectorConfig): StatJob | undefined {
    const worker = this.start();
    if (!worker) return undefined;
    const job = this.nextJob++;
    // Referenced only while a job runs: an idle worker must not keep the process alive.
    if (this.running++ === 0) worker.ref();
    worker.postMessage({ type: "begin", job, config });
    let batches = 0;
    return {
      get batches() {
        return batches;
      },
      hasRoom: (depth) => this.posted - Atomics.load(this.done, 0) <= depth,
      post: (absolutePrefix, relativePrefix, names, directories) => {
        this.posted++;
        batches++;
        worker.postMessage({ type: "batch", job, absolutePrefix, relativePrefix, names, directories });
      },
      finish: () =>
        new Promise((resolve) => {
          this.waiting.set(job, resolve);
          worker.postMessage({ type: "end", job });
        }),
    };
  }

  close(): void {
    this.worker?.terminate();
    this.worker = undefined;
    for (const resolve of this.waiting.values()) resolve(null);
    this.waiting.clear();
    this.running = 0;
  }

  private start(): Worker | undefined {
    if (this.worker || this.unavailable) return this.worker;
    try {
      const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
      const worker = new Worker(url);
      worker.onmessage = ({ data }: MessageEvent<{ job: number; result: Collected | null }>) => {
        const resolve = this.waiting.get(data.job);
        this.waiting.delete(data.job);
        resolve?.(data.result);
        if (--this.running === 0) worker.unref();
      };
      worker.onerror = () => this.close();
      worker.postMessage({ type: "init", shared: this.done.buffer });
      worker.unref();
      this.worker = worker;
    } catch {
      this.unavailable = true;
    }
    return this.worker;
  }
}
