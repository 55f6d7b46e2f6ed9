/**
 * The stat worker thread's program (see `stat-worker.ts`): one collector per job, fed parcels of
 * directory entries, counting finished parcels in shared memory so the main thread can tell how
 * far behind it is (and when a parcel's directories may be closed) without waiting for a message.
 */
import { jitAtNormalPace } from "../../core/jit-policy.ts";
import { type Collector, createCollector } from "./collector.ts";
import { entryStat } from "./entry-stat.ts";
import { stayBelowFtl } from "./jit.ts";
import { libc } from "./libc.ts";
import { ParcelDirectory, type ParcelMessage } from "./parcel.ts";
import { FINISHED, READY, type WorkerMessage, type WorkerReply } from "./stat-worker.ts";

declare const self: Worker;

// A worker's VM starts at the binary's start-up JIT scale; its loops are hot from the first parcel.
jitAtNormalPace();

const jobs = new Map<number, Collector>();
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

stayBelowFtl(statParcel); // see jit.ts

self.onmessage = ({ data }: MessageEvent<WorkerMessage>) => {
  if (data.type === "init") {
    entryStat(); // probes statx now rather than in the first parcel
    shared = new Int32Array(data.shared);
    Atomics.store(shared, READY, 1);
    Atomics.notify(shared, READY);
  } else if (data.type === "begin") jobs.set(data.job, createCollector(data.config, entryStat()));
  else if (data.type === "parcel") {
    try {
      const collector = jobs.get(data.job);
      if (collector) statParcel(collector, data.parcel);
    } finally {
      if (shared) Atomics.add(shared, FINISHED, 1);
    }
  } else if (data.type === "end") {
    const collector = jobs.get(data.job);
    jobs.delete(data.job);
    const reply: WorkerReply = { type: "result", job: data.job, result: collector ? collector.result() : null };
    self.postMessage(reply);
  }
};
