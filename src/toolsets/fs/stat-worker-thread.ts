/**
 * The stat worker thread's program (see `stat-worker.ts`): one collector per job, fed batches of
 * directory entries, counting finished batches in shared memory so the main thread can tell how
 * far behind it is (and when a batch's directory may be closed) without waiting for a message.
 */
import { type Collector, createCollector } from "./collector.ts";
import { entryStat } from "./entry-stat.ts";
import type { WorkerMessage, WorkerReply } from "./stat-worker.ts";

declare const self: Worker;

const jobs = new Map<number, Collector>();
let done: Int32Array | undefined;

self.onmessage = ({ data }: MessageEvent<WorkerMessage>) => {
  if (data.type === "init") done = new Int32Array(data.shared);
  else if (data.type === "begin") jobs.set(data.job, createCollector(data.config, entryStat()));
  else if (data.type === "batch") {
    try {
      jobs.get(data.job)?.add(data.fd, data.directoryPrefix, data.relativePrefix, data.names, data.directories);
    } finally {
      if (done) Atomics.add(done, 0, 1);
    }
  } else if (data.type === "end") {
    const collector = jobs.get(data.job);
    jobs.delete(data.job);
    const reply: WorkerReply = { type: "result", job: data.job, result: collector ? collector.result() : null };
    self.postMessage(reply);
  }
};

self.postMessage({ type: "ready" } satisfies WorkerReply);
