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

/**
 * The decoders of file names, here and in every other module that reads them. `ignoreBOM`: by
 * default a TextDecoder drops a leading U+FEFF, so the directory named "\uFEFF.." would decode to
 * ".." and be opened as the parent (outside the root), and "\uFEFFd" as another directory "d".
 * `exactNameText` throws on bytes that are not UTF-8 (see `decodeExactName`).
 */
export const lenientNameText = new TextDecoder("utf-8", { ignoreBOM: true });
export const exactNameText = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What a listing reads of a readdir entry (a `Dirent`, or an entry typed by lstat). */
export type DirentLike = Pick<Dirent, "name" | "isSymbolicLink" | "isDirectory" | "isFile">;

/** The name at `offset` in `bytes`, up to its NUL. */
export function decodeName(bytes: Uint8Array, offset: number): string {
  const end = bytes.indexOf(0, offset);
  return lenientNameText.decode(bytes.subarray(offset, end));
}

/**
 * The name at `offset` when it is valid UTF-8, else undefined: such a name has no faithful string
 * (two of them could decode to the same one), so it can be neither reported nor found again.
 */
export function decodeExactName(bytes: Uint8Array, offset: number): string | undefined {
  try {
    return exactNameText.decode(bytes.subarray(offset, bytes.indexOf(0, offset)));
  } catch {
    return undefined;
  }
}

/**
 * Whether the name at `offset` is valid UTF-8 (`decodeExactName` gives it): ASCII at a glance,
 * decoded otherwise.
 */
export function isExactName(bytes: Uint8Array, offset: number): boolean {
  for (let at = offset; ; at++) {
    const byte = bytes[at];
    if (byte === 0) return true;
    if (byte >= 0x80) return decodeExactName(bytes, offset) !== undefined;
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
  /** Raw batches: the i-th name starts at `pointer + offsets[offsetsStart + i]`. */
  readonly offsets: Int32Array;
  readonly offsetsStart: number;
  /** The name, decoded leniently (invalid UTF-8 becomes U+FFFD). */
  name(index: number): string;
  /** The name to report: undefined when it is not valid UTF-8 (see `decodeExactName`). */
  exactName(index: number): string | undefined;
  /** Whether `exactName` gives a name, without building it. */
  hasExactName(index: number): boolean;
  isDirectory(index: number): boolean;
}

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
  readonly offsetsStart = 0;
  /** Names already known (always for readdir batches; raw ones decode on demand). */
  readonly names: (string | undefined)[] = [];
  /** 1 for a directory. */
  readonly directories: Uint8Array;

  constructor(capacity: number) {
    this.offsets = new Int32Array(capacity);
    this.directories = new Uint8Array(capacity);
  }

  /** Starts an empty batch over `listing`'s chunk. */
  reset(listing: Listing): void {
    this.bytes = listing.bytes;
    this.pointer = listing.pointer;
    this.count = 0;
    this.names.length = 0;
  }

  add(listing: Listing, index: number, isDirectory: boolean): void {
    const at = this.count++;
    this.offsets[at] = listing.offsets[index];
    // Raw names decode on demand (`name`), so only readdir batches carry them.
    if (!this.bytes) this.names[at] = listing.names[index];
    this.directories[at] = isDirectory ? 1 : 0;
  }

  name(index: number): string {
    return knownOrDecoded(this.names, this.bytes, this.offsets, index);
  }

  exactName(index: number): string | undefined {
    return this.bytes ? decodeExactName(this.bytes, this.offsets[index]) : this.names[index];
  }

  hasExactName(index: number): boolean {
    // A readdir name that is not UTF-8 never reaches a batch (the walk counts it).
    return this.bytes ? isExactName(this.bytes, this.offsets[index]) : true;
  }

  isDirectory(index: number): boolean {
    return this.directories[index] === 1;
  }
}
