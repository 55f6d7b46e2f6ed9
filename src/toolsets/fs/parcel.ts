/**
 * Several directories' batches packed into one message for the stat worker. A message costs
 * about 10 µs to send and receive, a 200-entry directory about 300 µs to stat, so one message per
 * directory would spend a few percent on messaging and one per parcel of ~1,000 entries well
 * under one. A parcel is typed arrays the worker takes over without a copy (the transfer list),
 * plus the few strings naming each directory.
 */
import { stayBelowFtl } from "./jit.ts";
import { decodeExactName, decodeName, type EntryBatch, isExactName, type StatBatch } from "./listing.ts";

export interface ParcelMessage {
  /** Per directory: its descriptor, its prefixes, and where its entries end (exclusive). */
  fds: Int32Array;
  directoryPrefixes: string[];
  relativePrefixes: string[];
  ends: Int32Array;
  /** Per entry: where its raw name starts in `bytes`, or -1 when its name is in `names`. */
  offsets: Int32Array;
  bytes: Uint8Array;
  /** Names of the entries listed by readdir (the fallbacks), in entry order. */
  names: string[];
  /** Per entry: 1 for a directory. */
  directories: Uint8Array;
}

/** Collects batches for the next parcel (main thread), in typed arrays reused from parcel to parcel. */
export class ParcelBuilder {
  static {
    stayBelowFtl(ParcelBuilder.prototype.add); // see jit.ts
  }

  private bytes = new Uint8Array(16 * 1024);
  private length = 0;
  private offsets = new Int32Array(2048);
  private directories = new Uint8Array(2048);
  private count = 0;
  private names: string[] = [];
  private fds: number[] = [];
  private directoryPrefixes: string[] = [];
  private relativePrefixes: string[] = [];
  private ends: number[] = [];

  get entries(): number {
    return this.count;
  }

  add(fd: number, directoryPrefix: string, relativePrefix: string, batch: EntryBatch): void {
    const { bytes: source, count } = batch;
    this.reserveEntries(count);
    if (source && count > 0) {
      // One copy of the byte range the batch's names span (names in between are harmless).
      const first = batch.offsets[0];
      let end = batch.offsets[count - 1];
      while (source[end] !== 0) end++;
      const size = end + 1 - first;
      this.reserveBytes(size);
      this.bytes.set(source.subarray(first, end + 1), this.length);
      const shift = this.length - first;
      const { offsets } = this;
      const sourceOffsets = batch.offsets;
      const at = this.count;
      for (let index = 0; index < count; index++) offsets[at + index] = sourceOffsets[index] + shift;
      this.length += size;
    } else {
      for (let index = 0; index < count; index++) {
        this.offsets[this.count + index] = -1;
        this.names.push(batch.name(index));
      }
    }
    this.directories.set(batch.directories.subarray(0, count), this.count);
    this.count += count;
    this.fds.push(fd);
    this.directoryPrefixes.push(directoryPrefix);
    this.relativePrefixes.push(relativePrefix);
    this.ends.push(this.count);
  }

  /** The parcel so far and the buffers to transfer with it; the builder starts empty again. */
  take(): { message: ParcelMessage; transfer: ArrayBuffer[] } {
    const message: ParcelMessage = {
      fds: Int32Array.from(this.fds),
      directoryPrefixes: this.directoryPrefixes,
      relativePrefixes: this.relativePrefixes,
      ends: Int32Array.from(this.ends),
      offsets: this.offsets.slice(0, this.count),
      bytes: this.bytes.slice(0, this.length),
      names: this.names,
      directories: this.directories.slice(0, this.count),
    };
    this.length = 0;
    this.count = 0;
    this.names = [];
    this.fds = [];
    this.directoryPrefixes = [];
    this.relativePrefixes = [];
    this.ends = [];
    const transfer = [message.fds, message.ends, message.offsets, message.bytes, message.directories].map(
      (array) => array.buffer as ArrayBuffer,
    );
    return { message, transfer };
  }

  private reserveBytes(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  private reserveEntries(more: number): void {
    if (this.count + more <= this.offsets.length) return;
    const size = Math.max(this.offsets.length * 2, this.count + more);
    const offsets = new Int32Array(size);
    offsets.set(this.offsets.subarray(0, this.count));
    this.offsets = offsets;
    const directories = new Uint8Array(size);
    directories.set(this.directories.subarray(0, this.count));
    this.directories = directories;
  }
}

/**
 * One directory of a received parcel, as the collector reads it (worker thread). The parcel's
 * bytes are placed at a known address first (`place`), so statx reads the names in place.
 */
export class ParcelDirectory implements StatBatch {
  count = 0;
  pointer = 0;
  offsets: Int32Array = new Int32Array(0);
  /** Where this directory's entries start in the parcel. */
  offsetsStart = 0;
  private firstName = 0;
  private message: ParcelMessage | undefined;
  private bytes: Uint8Array = new Uint8Array(0);

  /** Points at directory `index` of `message`, whose bytes are in `bytes` at address `pointer`. */
  select(message: ParcelMessage, index: number, bytes: Uint8Array, pointer: number, firstName: number): void {
    this.message = message;
    this.bytes = bytes;
    this.offsets = message.offsets;
    this.offsetsStart = index === 0 ? 0 : message.ends[index - 1];
    this.count = message.ends[index] - this.offsetsStart;
    this.firstName = firstName;
    this.pointer = this.count > 0 && message.offsets[this.offsetsStart] >= 0 ? pointer : 0;
  }

  name(index: number): string {
    const message = this.message as ParcelMessage;
    const offset = message.offsets[this.offsetsStart + index];
    return offset >= 0 ? decodeName(this.bytes, offset) : message.names[this.firstName + index];
  }

  exactName(index: number): string | undefined {
    const message = this.message as ParcelMessage;
    const offset = message.offsets[this.offsetsStart + index];
    return offset >= 0 ? decodeExactName(this.bytes, offset) : message.names[this.firstName + index];
  }

  hasExactName(index: number): boolean {
    const offset = (this.message as ParcelMessage).offsets[this.offsetsStart + index];
    return offset >= 0 ? isExactName(this.bytes, offset) : true;
  }

  isDirectory(index: number): boolean {
    return (this.message as ParcelMessage).directories[this.offsetsStart + index] === 1;
  }
}
