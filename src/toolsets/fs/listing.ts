/**
 * Directory entries as the walk reads them and hands them on, without a string per entry.
 *
 * A `Listing` is one chunk of a directory: with glibc the raw `getdents64` records in the walk's
 * own buffer (names stay NUL-terminated bytes until someone asks for one), elsewhere names from
 * `readdir`. An `EntryBatch` is the part of a chunk the walk wants stat'ed: for raw chunks the
 * names' offsets in the same bytes, so statx reads each name in place (`entry-stat.ts`) and only
 * the entries that end up in a result are ever decoded. A batch is consumed before the walk reads
 * on (the stat worker gets a compact copy: `parcel.ts`).
 */
import type { Dirent } from "node:fs";
import { DT_DIR, DT_LNK, DT_OTHER, DT_REG } from "./entry-stat.ts";

const decoder = new TextDecoder();

/** What a listing reads of a readdir entry (a `Dirent`, or an entry typed by lstat). */
export type DirentLike = Pick<Dirent, "name" | "isSymbolicLink" | "isDirectory" | "isFile">;

/** The name at `offset` in `bytes`, up to its NUL. */
export function decodeName(bytes: Uint8Array, offset: number): string {
  const end = bytes.indexOf(0, offset);
  return decoder.decode(bytes.subarray(offset, end));
}

const exactDecoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The name at `offset` when it is valid UTF-8, else undefined: such a name has no faithful string
 * (two of them could decode to the same one), so it can be neither reported nor found again.
 */
export function decodeExactName(bytes: Uint8Array, offset: number): string | undefined {
  try {
    return exactDecoder.decode(bytes.subarray(offset, bytes.indexOf(0, offset)));
  } catch {
    return undefined;
  }
}

/** The index-th name: from `names` when known, else decoded from the raw bytes once and kept there. */
function knownOrDecoded(
  names: (string | undefined)[],
  bytes: Uint8Array | undefined,
  offsets: Int32Array,
  index: number,
): string {
  let name = names[index];
  if (name === undefined) {
    name = decodeName(bytes as Uint8Array, offsets[index]);
    names[index] = name;
  }
  return name;
}

export class Listing {
  count = 0;
  /** `d_type` of each entry (DT_DIR, DT_REG, DT_LNK, DT_OTHER). */
  types: Uint8Array;
  /** Raw: where each name starts in `bytes`. */
  offsets: Int32Array;
  /** Decoded names (raw: filled on demand). */
  names: (string | undefined)[] = [];
  /** Raw: the getdents64 buffer, and its address in this thread; undefined for readdir chunks. */
  bytes: Uint8Array | undefined;
  pointer = 0;
  /** Raw: the same buffer as 32-bit words (records start 8-byte aligned), to read `d_ino`. */
  words: Uint32Array | undefined;
  /** Readdir chunks: 1 where the name is not valid UTF-8 (`names` holds it decoded leniently). */
  undecodable: Uint8Array;

  constructor(capacity: number) {
    this.types = new Uint8Array(capacity);
    this.offsets = new Int32Array(capacity);
    this.undecodable = new Uint8Array(capacity);
  }

  name(index: number): string {
    return knownOrDecoded(this.names, this.bytes, this.offsets, index);
  }

  /** The name to report and to open by: undefined when it is not valid UTF-8 (see `decodeExactName`). */
  exactName(index: number): string | undefined {
    if (this.bytes) return decodeExactName(this.bytes, this.offsets[index]);
    return this.undecodable[index] === 1 ? undefined : this.name(index);
  }

  /**
   * Refills this listing from readdir entries (the fallbacks), at most `capacity` at a time;
   * `undecodable` flags, by index in `entries`, the names that are not valid UTF-8.
   */
  fillFromDirents(entries: readonly DirentLike[], start: number, undecodable?: Uint8Array): number {
    const end = Math.min(entries.length, start + this.types.length);
    this.bytes = undefined;
    this.words = undefined;
    this.pointer = 0;
    this.names.length = 0;
    this.count = end - start;
    if (undecodable) this.undecodable.set(undecodable.subarray(start, end));
    else this.undecodable.fill(0, 0, this.count);
    for (let i = start; i < end; i++) {
      const entry = entries[i];
      this.names.push(entry.name);
      this.types[i - start] = entry.isSymbolicLink()
        ? DT_LNK
        : entry.isDirectory()
          ? DT_DIR
          : entry.isFile()
            ? DT_REG
            : DT_OTHER;
    }
    return end;
  }
}

/** Entries to stat, as the collector (`collector.ts`) reads them on either thread. */
export interface StatBatch {
  readonly count: number;
  /** Raw batches: the address of the bytes holding the names in this thread (0: use `name`). */
  readonly pointer: number;
  /** Raw batches: where the i-th name starts, relative to `pointer`. */
  offset(index: number): number;
  /** The name, decoded leniently (invalid UTF-8 becomes U+FFFD). */
  name(index: number): string;
  /** The name to report: undefined when it is not valid UTF-8 (see `decodeExactName`). */
  exactName(index: number): string | undefined;
  isDirectory(index: number): boolean;
}

/** Where a getdents64 record's name starts, past `d_ino` (8 bytes, first), `d_off`, `d_reclen` and `d_type`. */
export const NAME_OFFSET = 19;

/**
 * The entries of one listing chunk the walk wants stat'ed; valid until the walk reads on. One
 * per walk, refilled chunk after chunk (no allocation per entry).
 */
export class EntryBatch implements StatBatch {
  count = 0;
  /** Raw batches: the bytes holding the names (the walk's listing buffer) and their address. */
  bytes: Uint8Array | undefined;
  pointer = 0;
  readonly offsets: Int32Array;
  /** Names already known (always for readdir batches; raw ones decode on demand). */
  readonly names: (string | undefined)[] = [];
  /** 1 for a directory. */
  readonly directories: Uint8Array;
  private words: Uint32Array | undefined;
  /** For `inodeOrder`: each entry's inode number and index packed in one exact double, and the old order. */
  private readonly keys: Float64Array;
  private readonly previousOffsets: Int32Array;
  private readonly previousDirectories: Uint8Array;
  private readonly previousNames: (string | undefined)[] = [];
  /** Inode numbers from 2 ** 32 times this on cannot be packed with an index below the capacity. */
  private readonly packableHigh: number;

  constructor(capacity: number) {
    this.offsets = new Int32Array(capacity);
    this.directories = new Uint8Array(capacity);
    this.keys = new Float64Array(capacity);
    this.previousOffsets = new Int32Array(capacity);
    this.previousDirectories = new Uint8Array(capacity);
    this.packableHigh = Math.floor(Number.MAX_SAFE_INTEGER / capacity / 2 ** 32);
  }

  /** Starts an empty batch over `listing`'s chunk. */
  reset(listing: Listing): void {
    this.bytes = listing.bytes;
    this.words = listing.words;
    this.pointer = listing.pointer;
    this.count = 0;
    this.names.length = 0;
  }

  /**
   * Raw batches: reorders the entries by inode number (`d_ino`). A directory lists in hash order,
   * while inodes lie in the inode tables, and mostly in memory too, in the order they were
   * created; stat'ing in inode order reads both sequentially: fewer seeks with a cold cache (as
   * gnulib's fts sorts large directories for find) and fewer cache misses warm (fs-phases.ts). A
   * batch whose inode numbers are too large to pack keeps the listing's order.
   */
  inodeOrder(): void {
    const { count, words, offsets, directories, names, keys } = this;
    if (!words || count < 2) return;
    const capacity = offsets.length;
    for (let index = 0; index < count; index++) {
      const record = (offsets[index] - NAME_OFFSET) >> 2;
      const high = words[record + 1];
      if (high >= this.packableHigh) return;
      keys[index] = (high * 2 ** 32 + words[record]) * capacity + index;
    }
    keys.subarray(0, count).sort();
    const { previousOffsets, previousDirectories, previousNames } = this;
    previousOffsets.set(offsets.subarray(0, count));
    previousDirectories.set(directories.subarray(0, count));
    for (let index = 0; index < count; index++) previousNames[index] = names[index];
    for (let index = 0; index < count; index++) {
      const from = keys[index] % capacity;
      offsets[index] = previousOffsets[from];
      directories[index] = previousDirectories[from];
      names[index] = previousNames[from];
    }
  }

  add(listing: Listing, index: number, isDirectory: boolean): void {
    const at = this.count++;
    this.offsets[at] = listing.offsets[index];
    this.names[at] = listing.names[index];
    this.directories[at] = isDirectory ? 1 : 0;
  }

  name(index: number): string {
    return knownOrDecoded(this.names, this.bytes, this.offsets, index);
  }

  exactName(index: number): string | undefined {
    return this.bytes ? decodeExactName(this.bytes, this.offsets[index]) : this.names[index];
  }

  offset(index: number): number {
    return this.offsets[index];
  }

  isDirectory(index: number): boolean {
    return this.directories[index] === 1;
  }
}
